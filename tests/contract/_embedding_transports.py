"""Fake transports for the embedding SDKs: check the request each real API would get, answer in its shape.

Request shapes were learned by printing what the installed SDKs send (google-genai 1.x via httpx2,
openai via httpx2, voyageai 0.5 via requests, Ollama's REST API via httpx). A request in any other shape is
recorded in `service.problems`, which the contract fixture asserts is empty after every test.
"""

from __future__ import annotations

import json

import httpx
import httpx2
import requests
from requests.adapters import BaseAdapter

from tests.contract._embedding_service import STATUS_NAMES, Call, FakeEmbeddingService, float32_base64

GEMINI_BASE = "https://generativelanguage.googleapis.com/"
OPENAI_URL = "https://api.openai.com/v1/embeddings"


def _bearer(value: str | None) -> str | None:
    return value[len("Bearer "):] if value and value.startswith("Bearer ") else None


def gemini_transport(service: FakeEmbeddingService) -> httpx2.MockTransport:
    """The Generative Language API: `models/{model}:batchEmbedContents`, key in `x-goog-api-key`."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        if service.network_down:
            raise httpx2.ConnectTimeout("timed out", request=request)
        url, path = str(request.url), request.url.path
        batch = path.endswith(f"/models/{service.model}:batchEmbedContents")
        single = path.endswith(f"/models/{service.model}:embedContent")
        service.check(request.method == "POST" and url.startswith(GEMINI_BASE), f"unexpected {request.method} {url}")
        service.check(batch or single, f"not an embed endpoint of {service.model}: {path}")
        service.check("key=" not in url, "the API key travels in the URL")
        body = json.loads(request.content)
        items = body.get("requests", []) if batch else [body]
        kinds = {item.get("taskType") for item in items}
        dims = {item.get("outputDimensionality") for item in items}
        service.check(len(kinds) == 1 and len(dims) == 1, f"one batch mixes task types or sizes: {kinds} {dims}")
        if batch:
            service.check(all(i.get("model") == f"models/{service.model}" for i in items), "batch item model")
        texts = ["".join(p.get("text", "") for p in item.get("content", {}).get("parts", [])) for item in items]
        service.record(Call(url, texts, service.model, next(iter(kinds), None), next(iter(dims), None),
                            request.headers.get("x-goog-api-key")))
        status = service.next_status()
        if status != 200:
            return httpx2.Response(status, json={"error": {
                "code": status, "message": service.error_detail, "status": STATUS_NAMES.get(status, "UNKNOWN")}})
        vectors = service.answer(texts)
        if batch:
            return httpx2.Response(200, json={"embeddings": [{"values": v} for v in vectors]})
        return httpx2.Response(200, json={"embedding": {"values": vectors[0]}} if vectors else {})

    return httpx2.MockTransport(handle)


def openai_transport(service: FakeEmbeddingService) -> httpx2.MockTransport:
    """`POST /v1/embeddings` with a bearer key; answers in the encoding_format the SDK asked for."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        if service.network_down:
            raise httpx2.ConnectTimeout("timed out", request=request)
        url = str(request.url)
        service.check(request.method == "POST" and url == OPENAI_URL, f"unexpected {request.method} {url}")
        body = json.loads(request.content)
        texts = body.get("input")
        service.check(isinstance(texts, list) and all(isinstance(t, str) for t in texts),
                      f"input is not a list of strings: {texts!r}")
        service.check(body.get("model") == service.model, f"model {body.get('model')!r}")
        service.record(Call(url, list(texts or []), body.get("model"), None, body.get("dimensions"),
                            _bearer(request.headers.get("authorization"))))
        status = service.next_status()
        if status != 200:
            return httpx2.Response(status, json={"error": {
                "message": service.error_detail, "type": "invalid_request_error", "param": None, "code": None}})
        encode = float32_base64 if body.get("encoding_format") == "base64" else list
        data = [{"object": "embedding", "index": i, "embedding": encode(v)}
                for i, v in enumerate(service.answer(list(texts)))]
        return httpx2.Response(200, json={"object": "list", "data": data, "model": body.get("model"),
                                          "usage": {"prompt_tokens": 1, "total_tokens": 1}})

    return httpx2.MockTransport(handle)


class VoyageAdapter(BaseAdapter):
    """A requests transport adapter standing in for api.voyageai.com (or ai.mongodb.com for `al-` keys)."""

    def __init__(self, service: FakeEmbeddingService) -> None:
        super().__init__()
        self.service = service

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        """Check the request, record it, answer like the Voyage API."""
        service = self.service
        if service.network_down:
            raise requests.exceptions.ConnectTimeout("timed out", request=request)
        base = "https://ai.mongodb.com/v1" if (service.key or "").startswith("al-") else "https://api.voyageai.com/v1"
        service.check(request.method == "POST" and request.url == f"{base}/embeddings",
                      f"unexpected {request.method} {request.url}")
        body = json.loads(request.body)
        service.check(body.get("model") == service.model, f"model {body.get('model')!r}")
        service.record(Call(request.url, list(body.get("input") or []), body.get("model"), body.get("input_type"),
                            body.get("output_dimension"), _bearer(request.headers.get("Authorization"))))
        status = service.next_status()
        if status != 200:
            return self._response(request, status, {"detail": service.error_detail})
        encode = float32_base64 if body.get("encoding_format") == "base64" else list
        data = [{"object": "embedding", "embedding": encode(v), "index": i}
                for i, v in enumerate(service.answer(list(body.get("input") or [])))]
        return self._response(request, 200, {"object": "list", "data": data, "model": body.get("model"),
                                             "usage": {"total_tokens": 1}})

    @staticmethod
    def _response(request, status: int, payload: dict) -> requests.Response:
        response = requests.Response()
        response.status_code = status
        response.headers["Content-Type"] = "application/json"
        response._content = json.dumps(payload).encode()
        response.encoding = "utf-8"
        response.url = request.url
        response.request = request
        return response

    def close(self) -> None:
        """Nothing to release."""


def voyage_session(service: FakeEmbeddingService) -> requests.Session:
    """A requests.Session whose every request goes to the fake Voyage API."""
    session = requests.Session()
    adapter = VoyageAdapter(service)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def ollama_transport(service: FakeEmbeddingService, host: str) -> httpx.MockTransport:
    """Ollama's `POST {host}/api/embed {"model", "input": [...]}` -> `{"embeddings": [[...]]}`."""

    def handle(request: httpx.Request) -> httpx.Response:
        if service.network_down:
            raise httpx.ConnectError("connection refused", request=request)
        url = str(request.url)
        service.check(request.method == "POST" and url == f"{host}/api/embed", f"unexpected {request.method} {url}")
        body = json.loads(request.content)
        service.check(body.get("model") == service.model, f"model {body.get('model')!r}")
        service.check(isinstance(body.get("input"), list), f"input is not a list: {body.get('input')!r}")
        service.record(Call(url, list(body.get("input") or []), body.get("model"), None, None, None))
        status = service.next_status()
        if status != 200:
            return httpx.Response(status, json={"error": service.error_detail})
        return httpx.Response(200, json={"model": body.get("model"),
                                         "embeddings": service.answer(list(body["input"]))})

    return httpx.MockTransport(handle)
