"""What an expression is an instance of, where the code says it (Python's `ast`, across a checkout).

A refactoring that moves `CLASS.METHOD` must tell `x.METHOD(...)` calls of it from calls of a
same-named method of another class. The type of `x` is read off what the code declares, never
guessed from names:
- `self` (the first parameter of a method) is an instance of the method's class, or of the class
  its annotation names (a mixin's `def loop(self: Scheduler)`);
- a parameter, a variable or an attribute annotated `T` (`Optional[T]`, `Union[...]`, `T | None`,
  `"T"`, `Type[T]`, `List[T]` read by item) holds a `T`; a property or a function returning `T`;
- a name only `import X` statements bind is the module `X` (`Module("X")`), and a builtin
  class nothing in the file rebinds is that class (`set()` makes a `builtins.set`; not `type` and
  `super`, whose call gives its argument's class);
- a name or an attribute assigned `T(...)` (a class of the checkout, or one it imports) holds a
  `T`, and so does one assigned any expression whose type is known that way (another attribute,
  `a or b`, `x if c else y`, a call of a class object returned by a function annotated `Type[T]`);
- an attribute declared without a useful type (`tp_worker: Any` in a dataclass, `self.x = x` from
  an unannotated parameter) takes the types of what every construction of its class in the
  checkout passes for it (`Manager(tp_worker=self.tp_worker)`), when every one can be read.
The attribute of a class is looked up in the class and its bases; where no base declares its
type, the assignments of its subclasses count too (an instance typed `T` may be one of them).
Anything else is unknown (`None`): a caller then treats the place as ambiguous and lists it.

Types are frozensets of `Instance(QUALNAME)`, `ClassObject(QUALNAME)`, `Module(NAME)`, `Function`
(one to call), `Sequence(TYPES)` (a container whose items are TYPES), `FixedTuple((TYPES, ...))`
and NONE; a class is named by its defining module and name
(`sglang.srt.model_executor.model_runner.ModelRunner`, re-exports followed; `<test/x.py>.C` for a
file outside the package), a class from outside the checkout by the name its import spells
(`torch.nn.Module`).

The package, by what each module resolves (each a set of functions over the program):
- `model`: the types; `file`: one parsed file; `classes`: the checkout's files and classes;
- `expressions`: `type_of`, the entry point, and what an expression's form says;
- `names`: parameters, variables, globals, imports; `assignments`: what binds a name in a body;
- `attributes`: `x.attr` for an instance or a class; `members`: what a class binds for an
  attribute; `writes`: its methods' `self.X = ...`; `constructions`: what its constructions pass;
- `calls`: what a call gives; `annotations`: what an annotation names;
- `contract`: what an attribute of a name holds wherever it is declared;
- `program`: `Program`, which offers them as its methods.

Where the type stays unknown, `elimination` tells why a value still is no instance of a given
class (also used for an attribute its `family` never has, or only ever given values that are
not), each decision with its evidence (file:line).
"""

from pysource.receivers.file import File
from pysource.receivers.model import (NONE, ClassObject, FixedTuple, Function, Instance, Module, NoneValue, Sequence,
                                      Type, Types, union)
from pysource.receivers.program import Program

__all__ = ["NONE", "ClassObject", "File", "FixedTuple", "Function", "Instance", "Module", "NoneValue", "Program",
           "Sequence", "Type", "Types", "union"]
