"""Judge a pair: compare observations (equal, classified, divergent) and check the moved code against
the old body statically."""
