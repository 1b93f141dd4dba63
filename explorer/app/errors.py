"""The API's one refusal shape, made by FastAPI's exception handlers: every failure is `{"error": message}`.

A refusal is a 4xx (`schemas.Refusal`) that names the value: from FastAPI's validation (400), a `UserError` (its own
`status` where it has one: 404, 409, 413, 429), or Starlette's own 400/404/405. A bug is logged with its traceback
and answered 500 with a generic message; the server goes on. The front of the server
(`explorer/server/middleware.py`, the body cap) answers with the same `error`.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from ..errors import UserError
from .schemas import Refusal, refusal

log = logging.getLogger("explorer.api")
GENERIC_ERROR = (
    "Something went wrong on the server while doing that (it has been logged). Try again, or reload the page."
)
REFUSED = {status: {"model": Refusal} for status in (400, 404, 429)}  # what every route documents beside its answer


def error(message: str, status: int, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    return error(refusal(list(exc.errors()), getattr(exc, "body", None)), 400)


async def refused(request: Request, exc: UserError) -> JSONResponse:
    return error(str(exc), getattr(exc, "status", 400))


async def unrouted(request: Request, exc: HTTPException) -> JSONResponse:
    """Starlette's own: a body it cannot parse, an unknown route, a method a route does not take."""
    where = request.url.path
    detail = {
        400: "The request's body could not be read as JSON (nested too deeply, or not JSON); send the object the "
        "API's description shows (/ae/api/docs).",
        404: f"There is no API route {where} (the routes: /ae/api/docs).",
        405: f"The route {where} does not take {request.method} (see /ae/api/docs).",
    }.get(exc.status_code, str(exc.detail))
    return error(detail, exc.status_code, exc.headers)


async def failed(request: Request, exc: Exception) -> JSONResponse:
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return error(GENERIC_ERROR, 500)


def answer_errors(app: FastAPI) -> None:
    """Every failure of `app`'s routes answered in the one shape."""
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(UserError, refused)
    app.add_exception_handler(HTTPException, unrouted)
    app.add_exception_handler(Exception, failed)
