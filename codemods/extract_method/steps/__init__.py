"""The four steps of an extraction, one transform each: make the method static in place
(`make_static`), move it (`move_function`, into an existing module: `target_module`), leave a
wrapper (`leave_wrapper`; from a tree where steps 1-2 are done: `wrapper_from_tree`), narrow its
parameters and tidy (`narrow_and_tidy`: `narrow_param`, `tidy`). `pipeline.STEPS` runs them."""
