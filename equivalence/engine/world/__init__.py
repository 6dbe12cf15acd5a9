"""The world both versions run in: one answer per access path, and the stand-ins that record what
the code needs of them."""
