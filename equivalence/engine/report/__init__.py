"""The report: JSON (the contract), Markdown for a pull request, the terminal summary."""
