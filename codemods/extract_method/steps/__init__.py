"""The four steps of an extraction, one transform each: make the method static in place, move it,
leave a wrapper (also from a tree where steps 1-2 are done), narrow its parameters and tidy."""
