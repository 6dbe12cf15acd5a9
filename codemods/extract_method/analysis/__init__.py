"""What the extraction reads off the method body: its parameters and results (definite
assignment), their annotations, the code that travels with it, where a module global may change."""
