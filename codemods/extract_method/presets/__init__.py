"""Presets of extract_method: a recipe spelling one extraction out, and the fixes that go with it."""
