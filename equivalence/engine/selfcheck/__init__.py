"""The self-check: generic mutants of a version, each of which the check must tell apart."""
