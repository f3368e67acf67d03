"""TensorFlow's run-time errors: ``OpError`` and its subclasses, with TF's codes.

Raised by the Session when a kernel fails; each names the op (``node_def``,
``op``) and, in its message, the user's source line that created the op.
"""
from __future__ import annotations

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running an op: TF's base class for run-time errors."""

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self) -> int:
        return self._error_code

    def __str__(self):
        return self._message

    def __reduce__(self):
        return type(self), (self._node_def, None, self._message)


def _subclass(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc})


CancelledError = _subclass("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _subclass("InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument.")
DeadlineExceededError = _subclass("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _subclass("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _subclass("UnauthenticatedError", UNAUTHENTICATED, "No valid credentials.")
ResourceExhaustedError = _subclass("ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource is exhausted.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to run the op (e.g. an uninitialized variable).")
AbortedError = _subclass("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "An op iterated past the valid range.")
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _subclass("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _subclass("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")



class InaccessibleTensorError(ValueError):
    """A tensor or op marked unfetchable (``Graph.prevent_fetching``) was fetched."""


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation a symbolic value cannot support in a graph (iterating
    over a ``tf.Variable``), as TF's error of that name."""


_CODE_TO_CLASS = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError, INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError, NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError, PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError, RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError, ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError, UNIMPLEMENTED: UnimplementedError, INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError, DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code: int) -> type:
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls: type) -> int:
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    raise KeyError(cls)
