"""The error every stand-in raises; the server renders it in the service's own wire format."""

from __future__ import annotations


class ServiceError(Exception):
    """An AWS error response: `code` is the error type (ValidationException, …), `status` the HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


def validation(message: str) -> ServiceError:
    return ServiceError("ValidationException", message, 400)


def not_found(message: str, code: str = "ResourceNotFoundException") -> ServiceError:
    return ServiceError(code, message, 404)


def conflict(message: str) -> ServiceError:
    return ServiceError("ConflictException", message, 409)
