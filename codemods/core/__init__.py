"""What every codemod command shares: the command line conventions, the change plan, writing
it all-or-nothing, rendering and formatting what a step touched, errors and exit codes, git."""
