"""Send a function defined on a page to a fresh Python process, as its source and what it names.

A process started with ``spawn`` (or ``subprocess``) cannot import a
function that a gallery script, a downloaded script run as ``__main__`` or
a notebook defined: pickle sends functions by reference. ``fork`` would
copy it, but a child forked after a backward on a machine with CUDA cannot
run autograd ("Unable to handle autograd's threading in combination with
fork-based multiprocessing"). So :func:`pack` sends the
function the way its reader wrote it, and :func:`unpack` rebuilds it:

* a module it names (``torch``, ``nn``) is imported again;
* a function or class of an importable module (``DistributedDataParallel``)
  is imported again from that module;
* a function or class defined on the page itself is sent as its source,
  with what it names in turn, and defined again in the page's order;
* any other value (a tensor, a number, a list) is pickled.

The source keeps its file name and line numbers, so a traceback from the
other process points at the page's own lines.
"""

from __future__ import annotations

import ast
import builtins
import dis
import importlib
import inspect
import linecache
import pickle
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Definition", "Package", "pack", "unpack"]


@dataclass(frozen=True)
class Definition:
    """The source of a function or class of the page, where the page has it."""

    name: str
    source: str
    filename: str
    first_line: int


@dataclass
class Package:
    """What a fresh process needs to define a page's function again."""

    function: str
    modules: dict[str, str] = field(default_factory=dict)
    """Name on the page -> module to import."""
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Name on the page -> (module, qualified name) to import from it."""
    values: dict[str, bytes] = field(default_factory=dict)
    """Name on the page -> pickled value."""
    definitions: list[Definition] = field(default_factory=list)
    """The page's functions and classes, in the page's order."""


def _globals_of_code(code: types.CodeType) -> set[str]:
    """The global names a code object (and the code nested in it) loads: not its locals."""
    names = {
        str(instruction.argval)
        for instruction in dis.get_instructions(code)
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL")
    }
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _globals_of_code(constant)
    return names


def _class_node(cls: type) -> tuple[ast.ClassDef, str, list[str]]:
    """The ``class`` statement of ``cls`` in its page, found through one of its methods' code."""
    codes = [
        value.__code__
        for value in vars(cls).values()
        if isinstance(value, types.FunctionType) and value.__code__.co_filename
    ]
    if not codes:
        raise TypeError(f"cannot find the source of class {cls.__name__!r}: it defines no method")
    filename, line = codes[0].co_filename, codes[0].co_firstlineno
    lines = linecache.getlines(filename)
    for node in ast.walk(ast.parse("".join(lines))):
        end = getattr(node, "end_lineno", None) or 0
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__ and node.lineno <= line <= end:
            return node, filename, lines
    raise TypeError(f"cannot find the source of class {cls.__name__!r} in {filename}")


def _class_globals(cls: type, node: ast.ClassDef) -> set[str]:
    """The names a class statement loads: its bases and decorators, its body, its methods' globals."""
    names: set[str] = set()
    for value in vars(cls).values():
        if isinstance(value, types.FunctionType):
            names |= _globals_of_code(value.__code__)
    outside_methods = [*node.bases, *node.keywords, *node.decorator_list]
    outside_methods += [
        statement
        for statement in node.body
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    for part in outside_methods:
        names |= {n.id for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return names


def _definition(value: Any) -> tuple[Definition, set[str]]:
    """A page's function or class as a :class:`Definition`, with the global names it loads."""
    if isinstance(value, type):
        node, filename, lines = _class_node(value)
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        source = textwrap.dedent("".join(lines[first - 1 : node.end_lineno]))
        return Definition(value.__name__, source, filename, first), _class_globals(value, node)
    code = value.__code__
    if code.co_freevars:
        raise TypeError(
            f"{value.__name__}() uses variables of the function around it ({', '.join(code.co_freevars)}): "
            "define it at the top level of the page"
        )
    if value.__name__ == "<lambda>":
        raise TypeError("a lambda has no source of its own to send: define a function with def")
    source = textwrap.dedent(inspect.getsource(value))
    first = code.co_firstlineno
    return Definition(value.__name__, source, code.co_filename, first), _globals_of_code(code)


def _importable(value: Any, page_module: str) -> tuple[str, str] | None:
    """(module, qualified name) where ``value`` can be imported again from, or None."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or module == page_module:
        return None
    if module == "__main__" or "<locals>" in qualname:
        return None
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return (module, qualname) if found is value else None


def pack(function: types.FunctionType) -> Package:
    """Return what a fresh process needs to define ``function`` again (see the module's docstring).

    Raises :class:`TypeError` naming the value when a name the function uses
    can be neither imported, defined from source nor pickled.
    """
    page_module = function.__module__
    package = Package(function.__name__)
    definitions: dict[str, Definition] = {}
    pending: list[types.FunctionType | type] = [function]
    seen: set[str] = set()
    while pending:
        current = pending.pop()
        definition, names = _definition(current)
        definitions[definition.name] = definition
        for name in sorted(names - seen):
            seen.add(name)
            if name not in function.__globals__:
                continue  # a builtin, or a name the page has not bound (an error when it runs)
            value = function.__globals__[name]
            if isinstance(value, types.ModuleType):
                package.modules[name] = value.__name__
            elif (where := _importable(value, page_module)) is not None:
                package.imported[name] = where
            elif isinstance(value, (types.FunctionType, type)) and name not in definitions:
                pending.append(value)
            elif name not in definitions:
                try:
                    package.values[name] = pickle.dumps(value)
                except Exception as error:
                    raise TypeError(
                        f"cannot send {name!r} ({type(value).__name__}) to another process: {error}. "
                        f"Build it inside {function.__name__}(), or pass tensors, numbers and lists"
                    ) from None
    package.definitions = sorted(definitions.values(), key=lambda d: (d.filename, d.first_line))
    return package


def unpack(package: Package, module_name: str = "__rank__") -> types.FunctionType:
    """Define the packed function again in a fresh namespace and return it."""
    namespace: dict[str, Any] = {"__name__": module_name, "__builtins__": builtins}
    for name, module in package.modules.items():
        namespace[name] = importlib.import_module(module)
    for name, (module, qualname) in package.imported.items():
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
        namespace[name] = found
    for name, data in package.values.items():
        namespace[name] = pickle.loads(data)
    for definition in package.definitions:
        padded = "\n" * (definition.first_line - 1) + definition.source
        exec(compile(padded, definition.filename, "exec"), namespace)
    function: types.FunctionType = namespace[package.function]
    return function
