"""Embedding adapters: the bundled local model (ONNX) and the Gemini, Voyage, OpenAI and Ollama providers."""
