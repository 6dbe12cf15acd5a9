"""What the class-moving kinds (extract_component, extract_superclass) share about their command
line: the run opened on the tree holding the target's package, and the file defining CLASS."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.errors import BadInput
from pysource.classes import files_defining
from pysource.layout import packages_held
from pysource.modules import module_files


def open_for_target(path: Path, target: str, target_label: str, *, format: bool = True) -> Context:
    """The run on PATH, which must hold the package of `target` (`target_label` names the argument)."""
    package = target.split(".")[0]
    try:
        return Context.open(Path(path), f"{package}/__init__.py", format=format)
    except BadInput:
        held = packages_held(Path(path))
        if held and package not in held:
            raise BadInput(f"{target_label} {target}: its package {package} is not in this tree, which "
                           f"holds {', '.join(held)}", Path(path)) from None
        raise


def class_file(ctx: Context, class_name: str, class_module: Optional[str], source: Optional[str]) -> str:
    """The file defining CLASS, relative to the folder holding the package: MODULE.CLASS's module,
    --source, or the one file defining it at top level."""
    if class_module:
        found = next((rel for rel in module_files(class_module) if (ctx.root / rel).is_file()), None)
        if found is None:
            raise BadInput(f"{class_module} (of {class_module}.{class_name}) is no module of this tree")
        if source and Path(source).as_posix() != found:
            raise BadInput(f"--source {source} is not the file of {class_module}")
        return found
    if source:
        if not (ctx.root / source).is_file():
            raise BadInput(f"--source {source}: no such file under {ctx.root}")
        return Path(source).as_posix()
    found = files_defining(ctx.checkout, class_name, [ctx.checkout.package])
    if not found:
        raise BadInput(f"no file under {ctx.root / ctx.checkout.package} defines class {class_name} at top level")
    if len(found) > 1:
        raise BadInput(f"class {class_name} is defined in {len(found)} files ({', '.join(found)}): say which with "
                       f"MODULE.{class_name} or --source FILE")
    return found[0]
