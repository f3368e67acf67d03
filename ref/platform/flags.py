"""``tf.flags`` / ``tf.app.flags``: command-line flags with absl's interface.

TensorFlow 2.x's ``tf.compat.v1.flags`` is ``absl.flags`` plus two things:
the ``DEFINE_*`` functions still accept TF 1.x's keyword names
(``flag_name``, ``default_value``, ``docstring``), and the global ``FLAGS``
parses ``sys.argv`` on the first read of a flag instead of raising. This
module implements that interface without depending on absl:

* ``DEFINE_string/integer/float/boolean/bool/list/enum/multi_string/
  multi_integer/multi_float/multi_enum(name, default, help, ...)`` define a
  flag on ``flag_values`` (``FLAGS`` by default); ``integer``/``float`` take
  ``lower_bound``/``upper_bound``.
* ``FLAGS(argv, known_only=False)`` parses ``--name=value``, ``--name value``,
  ``-name``, ``--flag``/``--noflag`` for booleans, stops at ``--``, and
  returns ``argv[0]`` followed by the arguments it did not consume (unknown
  flags too when ``known_only``; otherwise they raise UnrecognizedFlagError).
* ``FLAGS.name`` reads a value, ``FLAGS.name = v`` sets one,
  ``FLAGS["name"]`` is the :class:`Flag`.

Redefining a flag from a module with the same name (a module imported twice)
is ignored, from another module raises DuplicateFlagError, as absl does.
"""
from __future__ import annotations

import csv
import sys

__all__ = ["FLAGS", "Flag", "FlagValues", "Error", "IllegalFlagValueError", "UnrecognizedFlagError",
           "DuplicateFlagError", "UnparsedFlagAccessError", "ArgumentParser", "ArgumentSerializer",
           "DEFINE", "DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool",
           "DEFINE_list", "DEFINE_enum", "DEFINE_multi_string", "DEFINE_multi_integer", "DEFINE_multi_float",
           "DEFINE_multi_enum", "mark_flag_as_required", "mark_flags_as_required", "register_validator",
           "validator"]


class Error(Exception):
    """Base class of the flag errors (absl's ``flags.Error``)."""


class IllegalFlagValueError(Error):
    """A flag was given a value its parser or a validator rejects."""


class UnrecognizedFlagError(Error):
    """A flag on the command line that no DEFINE_* declared."""


class DuplicateFlagError(Error):
    """The same flag name defined from two modules."""


class UnparsedFlagAccessError(Error, AttributeError):
    """A flag read from a FlagValues that has not parsed its command line."""


class ArgumentSerializer:
    """Turns a value back into its command-line text."""

    def serialize(self, value):
        return str(value)


class ListSerializer(ArgumentSerializer):
    def serialize(self, value):
        return ",".join(str(v) for v in value)


class ArgumentParser:
    """Parses a flag's command-line text into its value (strings as given)."""

    flag_type = "string"

    def parse(self, argument):
        if not isinstance(argument, str):
            raise TypeError(f"flag value must be a string, found \"{type(argument)}\"")
        return argument


class _NumberParser(ArgumentParser):
    def __init__(self, convert, flag_type, lower_bound=None, upper_bound=None):
        self.convert, self.flag_type = convert, flag_type
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def _range(self):
        a, lo, hi = f"a{'n' * (self.flag_type == 'integer')} {self.flag_type}", self.lower_bound, self.upper_bound
        if lo is not None and hi is not None:
            return f"{a} in the range [{lo}, {hi}]"
        words = {(0, None): "a non-negative", (1, None): "a positive", (None, 0): "a non-positive",
                 (None, -1): "a negative"}
        if (lo, hi) in words:
            return f"{words[lo, hi]} {self.flag_type}"
        return f"{a} >= {lo}" if lo is not None else f"{a} <= {hi}"

    def parse(self, argument):
        if isinstance(argument, bool) or not isinstance(argument, (str, int, float)) or (
                self.convert is int and isinstance(argument, float)):
            raise TypeError(f"Expect argument to be a string or {self.flag_type}, found {type(argument)}")
        value = self.convert(argument)
        if (self.lower_bound is not None and value < self.lower_bound) or (
                self.upper_bound is not None and value > self.upper_bound):
            raise ValueError(f"{value} is not {self._range()}")
        return value


class _BooleanParser(ArgumentParser):
    flag_type = "bool"

    def parse(self, argument):
        if isinstance(argument, str):
            if argument.lower() in ("true", "t", "1"):
                return True
            if argument.lower() in ("false", "f", "0"):
                return False
            raise ValueError("Non-boolean argument to boolean flag", argument)
        if isinstance(argument, int):
            return bool(argument)
        raise TypeError(f"Non-boolean argument to boolean flag {argument!r}")


class _EnumParser(ArgumentParser):
    def __init__(self, enum_values, case_sensitive=True):
        if not enum_values:
            raise ValueError(f"enum_values cannot be empty, found \"{enum_values}\"")
        self.enum_values, self.case_sensitive = list(enum_values), case_sensitive
        self.flag_type = "string enum"

    def parse(self, argument):
        if self.case_sensitive:
            if argument in self.enum_values:
                return argument
        else:
            for v in self.enum_values:
                if v.upper() == str(argument).upper():
                    return v
        raise ValueError(f"value should be one of <{'|'.join(self.enum_values)}>")


class _ListParser(ArgumentParser):
    flag_type = "comma separated list of strings"

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        return [s.strip() for s in next(csv.reader([argument], strict=True))]


class Flag:
    """One flag: ``name``, ``default``, ``help``, ``value``, ``present`` (times
    given on the command line), ``using_default_value``, ``boolean``."""

    def __init__(self, parser, serializer, name, default, help_string, short_name=None, boolean=False,
                 allow_override=False):
        self.parser, self.serializer = parser, serializer
        self.name, self.help, self.short_name = name, help_string or "(no help available)", short_name
        self.boolean, self.allow_override = boolean, allow_override
        self.present = 0
        self.validators = []
        self._set_default(default)

    def _parse(self, argument):
        try:
            return self.parser.parse(argument)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {e}") from None

    def _set_default(self, default):
        self.default = self.value = None if default is None else self._parse(default)
        self.default_as_str = None if default is None else repr(self.serializer.serialize(self.value))
        self.using_default_value = True

    def parse(self, argument):
        """Sets the value from command-line text (counts one more occurrence)."""
        self.value = self._parse(argument)
        self.present += 1
        self.using_default_value = False

    def unparse(self):
        self.value, self.present, self.using_default_value = self.default, 0, True

    def flag_type(self):
        return self.parser.flag_type


class MultiFlag(Flag):
    """A flag that may be given several times; the value is the list of them."""

    def _parse(self, argument):
        items = argument if isinstance(argument, (list, tuple)) else [argument]
        return [Flag._parse(self, a) for a in items]

    def parse(self, argument):
        new = self._parse(argument)
        self.value = (self.value if self.present else []) + new
        self.present += 1
        self.using_default_value = False


class FlagValues:
    """A registry of flags and, once parsed, their values (absl's FlagValues)."""

    def __init__(self):
        self.__dict__.update(_flags={}, _modules={}, _parsed=False, _auto_parse=False)

    # -- the registry
    def __setitem__(self, name, flag):
        if not isinstance(flag, Flag):
            raise Error("Flag must be a Flag object")
        module = _calling_module()
        if name in self._flags and not (flag.allow_override or self._flags[name].allow_override):
            if self._modules[name] == module:
                return  # the defining module imported again
            raise DuplicateFlagError(f"The flag '{name}' is defined twice. First from {self._modules[name]}, "
                                     f"Second from {module}.  Description from first occurrence: "
                                     f"{self._flags[name].help}")
        self._flags[name] = flag
        self._modules[name] = module
        if flag.short_name and name == flag.name:  # absl: the short name is a key of its own
            self.__setitem__(flag.short_name, flag)

    def __getitem__(self, name):
        return self._flags[name]

    def __contains__(self, name):
        return name in self._flags

    def __len__(self):
        return len(self._flags)

    def __iter__(self):
        return iter(self._flags)

    def __dir__(self):
        return sorted(self._flags)

    def __delattr__(self, name):
        if name not in self._flags:
            raise AttributeError(name)
        del self._flags[name]
        del self._modules[name]

    # -- values
    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self._parsed:
            if not self._auto_parse:
                raise UnparsedFlagAccessError(f"Trying to access flag --{name} before flags were parsed.")
            self(sys.argv)  # tf.flags.FLAGS: parse on first read (TF 1.x behaviour kept by TF 2.x)
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise UnrecognizedFlagError(f"Unknown command line flag '{name}'")
        flag = self._flags[name]
        flag.value, flag.using_default_value = value, False
        self._validate([name])

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def unparse_flags(self):
        for flag in self._flags.values():
            flag.unparse()
        self.__dict__["_parsed"] = False

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self._flags.items()}

    def get_flag_value(self, name, default):
        return self._flags[name].value if name in self._flags else default

    def __call__(self, argv, known_only=False):
        """Parses ``argv`` (``argv[0]`` is the program); returns the unparsed rest."""
        if isinstance(argv, str):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program name as the first "
                             "element.")
        rest = [argv[0]]
        args = list(argv[1:])
        while args:
            arg = args.pop(0)
            if arg == "--":  # the end of flags; kept for main when unknown flags pass through (absl)
                rest.extend((["--"] if known_only else []) + args)
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            name, eq, value = arg.lstrip("-").partition("=")
            flag = self._flags.get(name)
            if flag is None and not eq and name.startswith("no") and name[2:] in self._flags \
                    and self._flags[name[2:]].boolean:
                self._flags[name[2:]].parse("false")
                continue
            if flag is None:
                if known_only:
                    rest.append(arg)
                    continue
                raise UnrecognizedFlagError(f"Unknown command line flag '{name}'")
            if not eq:
                if flag.boolean:
                    value = "true"
                elif args:
                    value = args.pop(0)
                else:
                    raise Error(f"Missing value for flag {arg}")
            flag.parse(value)
        self.mark_as_parsed()
        self._validate([n for n, f in self._flags.items() if n == f.name])
        return rest

    def _validate(self, names):
        messages = []
        for name in names:
            for checker, message in self._flags[name].validators:
                if not checker(self._flags[name].value):
                    messages.append(f"flag --{name}={self._flags[name].value}: {message}")
        if messages:
            raise IllegalFlagValueError("\n".join(messages))

    # -- help
    def module_help(self, module=None):
        """The flags of ``module`` (every module when None) in absl's help layout."""
        out = []
        modules = [module] if module is not None else list(dict.fromkeys(self._modules.values()))
        for m in modules:
            title = (sys.argv[0] if sys.argv and sys.argv[0] else m) if m == "__main__" else m
            out.append(f"{title}:")
            for name, flag in sorted(self._flags.items()):
                if self._modules[name] == m and name == flag.name:
                    out.extend(_help_lines(flag))
        return "\n".join(out)

    def main_module_help(self):
        return self.module_help("__main__")

    def __str__(self):
        return self.module_help()


def _help_lines(flag):
    """absl's lines for one flag: ``--name: help``, its default, its kind."""
    parser = flag.parser
    prefix = f"<{'|'.join(parser.enum_values)}>: " if isinstance(parser, _EnumParser) else ""
    lines = [f"  --{'[no]' if flag.boolean else ''}{flag.name}: {prefix}{flag.help}"]
    if isinstance(flag, MultiFlag):
        lines[0] += ";\n    repeat this option to specify a list of values"
    if flag.default is None:
        lines.append("    (default: 'None')" if not flag.boolean else "    (default: 'false')")
    elif flag.boolean:
        lines.append(f"    (default: '{str(flag.default).lower()}')")
    else:
        lines.append(f"    (default: {flag.default_as_str})")
    if isinstance(parser, _NumberParser):
        bounded = (parser.lower_bound, parser.upper_bound) != (None, None)
        kind = parser._range() if bounded else "an integer" if parser.convert is int else "a number"
        lines.append(f"    ({kind})")
    elif isinstance(parser, _ListParser):
        lines.append("    (a comma separated list)")
    return lines


def _calling_module():
    """``__name__`` of the first caller outside this module."""
    f = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__") == __name__:
        f = f.f_back
    return f.f_globals.get("__name__", "<unknown>") if f is not None else "<unknown>"


FLAGS = FlagValues()
FLAGS.__dict__["_auto_parse"] = True

_RENAMED = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _renamed(kwargs):
    for old, new in _RENAMED.items():
        if old in kwargs:
            kwargs[new] = kwargs.pop(old)
    return kwargs


def DEFINE(parser, name, default, help, flag_values=FLAGS, serializer=None, **args):  # noqa: N802,A002
    """Defines a flag with an explicit parser."""
    flag_values[name] = Flag(parser, serializer or ArgumentSerializer(), name, default, help, **args)
    return flag_values[name]


def _define(make_parser, boolean=False, multi=False, serializer=ArgumentSerializer):
    def define(name=None, default=None, help=None, *parser_args, flag_values=FLAGS, **kwargs):  # noqa: A002
        kwargs = _renamed(kwargs)
        name, default, help = kwargs.pop("name", name), kwargs.pop("default", default), kwargs.pop("help", help)
        keep = {k: kwargs.pop(k) for k in ("short_name", "allow_override") if k in kwargs}
        required = kwargs.pop("required", False)
        kwargs.pop("module_name", None)
        parser = make_parser(*parser_args, **kwargs)
        cls = MultiFlag if multi else Flag
        flag_values[name] = cls(parser, serializer(), name, default, help, boolean=boolean, **keep)
        if required:
            mark_flag_as_required(name, flag_values)
        return flag_values[name]
    return define


DEFINE_string = _define(ArgumentParser)
DEFINE_integer = _define(lambda lower_bound=None, upper_bound=None: _NumberParser(int, "integer", lower_bound,
                                                                                   upper_bound))
DEFINE_float = _define(lambda lower_bound=None, upper_bound=None: _NumberParser(float, "float", lower_bound,
                                                                                 upper_bound))
DEFINE_boolean = DEFINE_bool = _define(_BooleanParser, boolean=True)
DEFINE_list = _define(_ListParser, serializer=ListSerializer)
_DEFINE_enum = _define(lambda enum_values, case_sensitive=True: _EnumParser(enum_values, case_sensitive))


def DEFINE_enum(name, default, enum_values, help, flag_values=FLAGS, **args):  # noqa: N802,A002
    """A string flag restricted to ``enum_values``."""
    return _DEFINE_enum(name, default, help, enum_values, flag_values=flag_values, **args)
DEFINE_multi_string = _define(ArgumentParser, multi=True, serializer=ListSerializer)
DEFINE_multi_integer = _define(lambda lower_bound=None, upper_bound=None: _NumberParser(
    int, "integer", lower_bound, upper_bound), multi=True, serializer=ListSerializer)
DEFINE_multi_float = _define(lambda lower_bound=None, upper_bound=None: _NumberParser(
    float, "float", lower_bound, upper_bound), multi=True, serializer=ListSerializer)
_DEFINE_multi_enum = _define(lambda enum_values, case_sensitive=True: _EnumParser(enum_values, case_sensitive),
                             multi=True, serializer=ListSerializer)


def DEFINE_multi_enum(name, default, enum_values, help, flag_values=FLAGS, **args):  # noqa: N802,A002
    """A repeatable flag whose values are restricted to ``enum_values``."""
    return _DEFINE_multi_enum(name, default, help, enum_values, flag_values=flag_values, **args)


def register_validator(flag_name, checker, message="Flag validation failed", flag_values=FLAGS):
    """Adds ``checker(value) -> bool`` to a flag; parsing raises IllegalFlagValueError when it fails."""
    flag_values[flag_name].validators.append((checker, message))


def validator(flag_name, message="Flag validation failed", flag_values=FLAGS):
    """Decorator form of :func:`register_validator`."""
    def decorate(checker):
        register_validator(flag_name, checker, message, flag_values)
        return checker
    return decorate


def mark_flag_as_required(flag_name, flag_values=FLAGS):
    """Parsing raises IllegalFlagValueError while the flag is None."""
    register_validator(flag_name, lambda value: value is not None,
                       f"Flag --{flag_name} must have a value other than None.", flag_values)


def mark_flags_as_required(flag_names, flag_values=FLAGS):
    for name in flag_names:
        mark_flag_as_required(name, flag_values)
