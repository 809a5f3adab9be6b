"""Fake LLM servers for the keyword tiers: the Anthropic Messages API and Ollama's /api/generate.

Each checks the request the real API would get (problems are collected and asserted empty by the test
fixture), finds the entry by the `Title:` line of the prompt and answers with that entry's canned keywords.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Callable, Optional

import httpx
import httpx2

from tests._keyword_cases import CASES, TITLE_ONLY

MESSAGES_URL = "https://api.anthropic.com/v1/messages"
ANTHROPIC_ERRORS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                    429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


@dataclass
class LLMRequest:
    """One keyword request as the fake server understood it."""

    url: str
    model: str
    prompt: str
    auth: Optional[str]
    body: dict


@dataclass
class FakeLLM:
    """The server side: expected key, scripted status or answer, and an optional gate that holds replies."""

    key: Optional[str] = None
    status: int = 200
    error_detail: str = "request failed"
    answer: Optional[Callable[[str], str]] = None  # prompt -> raw answer text, replacing the canned one
    wrap_in_prose: bool = False
    gate: Optional[threading.Event] = None  # when set up, replies wait until the gate opens (a slow tier)
    requests: list[LLMRequest] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def check(self, condition: bool, problem: str) -> None:
        """Remember a request the real API would not receive in this shape."""
        if not condition:
            self.problems.append(problem)

    def hold(self) -> None:
        """Behave like a server that has not answered yet."""
        if self.gate is not None:
            self.gate.wait(10)

    def reply_for(self, prompt: str) -> str:
        """The model's text: the canned answer for the entry the prompt names."""
        if self.answer is not None:
            return self.answer(prompt)
        for case in [*CASES, TITLE_ONLY]:
            if f"Title: {case.name}\n" in prompt:
                array = json.dumps(list(case.llm_answer))
                return f"Here are the keywords:\n```json\n{array}\n```" if self.wrap_in_prose else array
        self.problems.append(f"the prompt names no known entry: {prompt[:120]!r}")
        return "[]"


def _user_text(body: dict) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "user":
            parts.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return "".join(parts)


def anthropic_transport(llm: FakeLLM) -> httpx2.MockTransport:
    """POST /v1/messages; the key in `x-api-key` (or `Authorization: Bearer`, which anthropic 2.x sends)."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        url = str(request.url)
        llm.check(request.method == "POST" and url == MESSAGES_URL, f"unexpected {request.method} {url}")
        bearer = request.headers.get("authorization", "")
        auth = request.headers.get("x-api-key") or (bearer[7:] if bearer.startswith("Bearer ") else None)
        llm.check(bool(request.headers.get("anthropic-version")), "no anthropic-version header")
        body = json.loads(request.content)
        llm.check(isinstance(body.get("max_tokens"), int), "max_tokens missing")
        llm.requests.append(LLMRequest(url, body.get("model"), _user_text(body), auth, body))
        llm.hold()
        if llm.status != 200:
            return httpx2.Response(llm.status, json={"type": "error", "error": {
                "type": ANTHROPIC_ERRORS.get(llm.status, "api_error"), "message": llm.error_detail}})
        return httpx2.Response(200, json={
            "id": "msg_01FAKE", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": [{"type": "text", "text": llm.reply_for(_user_text(body))}],
            "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 210, "output_tokens": 32}})

    return httpx2.MockTransport(handle)


def ollama_generate_transport(llm: FakeLLM, host: str) -> httpx.MockTransport:
    """Ollama's `POST {host}/api/generate` (non-streaming) -> `{"response": "<model text>", "done": true}`."""

    def handle(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        llm.check(request.method == "POST" and url == f"{host}/api/generate", f"unexpected {request.method} {url}")
        body = json.loads(request.content)
        llm.check(body.get("stream") is False, "a streaming request would answer in NDJSON chunks")
        llm.requests.append(LLMRequest(url, body.get("model"), str(body.get("prompt", "")), None, body))
        llm.hold()
        if llm.status != 200:
            return httpx.Response(llm.status, json={"error": llm.error_detail})
        return httpx.Response(200, json={"model": body.get("model"), "created_at": "2026-11-01T12:00:00Z",
                                         "response": llm.reply_for(str(body.get("prompt", ""))), "done": True})

    return httpx.MockTransport(handle)
