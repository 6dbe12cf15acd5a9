"""Load a version: its real modules executed with the rest of the package stubbed, the code that
runs compiled, and the inputs that code reads from outside itself."""
