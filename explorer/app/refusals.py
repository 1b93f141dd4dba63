"""The API's one error wrapper: every failure of a route, validation included, becomes one answer.

A refusal is a 4xx `{"error": message}` (`schemas.Refusal`) that names the value: from FastAPI's validation, a
`UserError` (with its own `status` where it has one) or the router's 404/405. A bug is logged with its traceback
and answered 500 with a generic message; the server goes on. A `Limited` route also takes the one limiter's turn
for its caller (`fairness.py`), around the route itself rather than as a FastAPI dependency with `yield`.
"""

from __future__ import annotations

import logging

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..interpret.request import UserError
from .callers import ASKING, caller_of
from .fairness import Fairness, shares
from .schemas import Refusal, refusal

log = logging.getLogger("explorer.api")
GENERIC_ERROR = (
    "Something went wrong on the server while doing that (it has been logged). Try again, or reload the page."
)
REFUSED = {status: {"model": Refusal} for status in (400, 404, 429)}  # what every route documents beside its answer


def refused(exc: Exception, where: str, method: str = "") -> JSONResponse:
    """The one answer to anything a route cannot do: a refusal naming the value, or (a bug) a logged generic one."""
    if isinstance(exc, RequestValidationError):
        return JSONResponse({"error": refusal(list(exc.errors()), getattr(exc, "body", None))}, status_code=400)
    if isinstance(exc, UserError):
        return JSONResponse({"error": str(exc)}, status_code=getattr(exc, "status", 400))
    if isinstance(exc, HTTPException):  # FastAPI's own: a body it cannot parse, an unknown route, a method
        detail = {
            400: "The request's body could not be read as JSON (nested too deeply, or not JSON); send the object "
            "the API's description shows (/ae/api/docs).",
            404: f"There is no API route {where} (the routes: /ae/api/docs).",
            405: f"The route {where} does not take {method or 'this method'} (see /ae/api/docs).",
        }.get(exc.status_code, str(exc.detail))
        return JSONResponse({"error": detail}, status_code=exc.status_code, headers=exc.headers)
    log.exception("%s failed", where)
    return JSONResponse({"error": GENERIC_ERROR}, status_code=500)


class Guarded(APIRoute):
    """A route whose every failure becomes `refused`'s answer (FastAPI's custom route class)."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:  # noqa: BLE001 - the server answers whatever a request does
                return refused(exc, request.url.path, request.method)

        return guarded


class Limited(Guarded):
    """A guarded route each caller may run at most its share of at once (the app's `state.fairness`; who the caller
    is: `state.clients`, `state.proxies`)."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def limited(request: Request) -> Response:
            state = request.app.state
            fairness: Fairness = state.fairness
            caller = caller_of(request, state.clients, state.proxies)
            counted = shares(caller)
            ASKING.set(caller.address)  # the model's line is fair between addresses (trace_cache.Slots)
            try:
                fairness.enter(counted)
            except UserError as exc:
                return refused(exc, request.url.path, request.method)
            try:
                return await handler(request)
            finally:
                fairness.leave(counted)

        return limited


async def unrouted(request: Request, exc: HTTPException) -> JSONResponse:
    """The API app's handler for what no route took (an unknown path, a method a route does not take)."""
    return refused(exc, request.url.path, request.method)
