"""DetectSecretsScanner: Yelp's detect-secrets plugins, tuned for notes, as an extra detector for the write paths.

The core's own patterns stay the first line (they run on the session-start hook too); this scanner adds the
plugins and false-positive filters a maintained project keeps up to date. Importing detect-secrets costs about
90 ms (it pulls in `requests`), so it is imported on the first scan, by the write paths only (ADR 12).
"""

from __future__ import annotations

import importlib
from typing import Callable, Iterable, Optional

from memory_core.safety.redaction import Detector, add_detector

# Every plugin of detect-secrets 1.5 except two tuned out for engineering notes: HexHighEntropyString (commit
# SHAs and content hashes are hex) and IPPublicDetector (an address is not a credential).
PLUGINS = (
    ("artifactory", "ArtifactoryDetector"), ("aws", "AWSKeyDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"), ("basic_auth", "BasicAuthDetector"),
    ("cloudant", "CloudantDetector"), ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"), ("gitlab_token", "GitLabTokenDetector"),
    ("high_entropy_strings", "Base64HighEntropyString"), ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"), ("jwt", "JwtTokenDetector"), ("keyword", "KeywordDetector"),
    ("mailchimp", "MailchimpDetector"), ("npm", "NpmDetector"), ("openai", "OpenAIDetector"),
    ("private_key", "PrivateKeyDetector"), ("pypi_token", "PypiTokenDetector"), ("sendgrid", "SendGridDetector"),
    ("slack", "SlackDetector"), ("softlayer", "SoftlayerDetector"), ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"), ("telegram_token", "TelegramBotTokenDetector"), ("twilio", "TwilioKeyDetector"),
)
# detect-secrets' own heuristic filters that apply to a line of text (the file-name ones do not).
FILTERS = ("is_sequential_string", "is_potential_uuid", "is_templated_secret", "is_prefixed_with_dollar_sign",
           "is_not_alphanumeric_string")
# Read as a markdown note: the keyword plugin then wants quotes, as for prose and code (not `key: value` config).
FILENAME = "memory-entry.md"
# The keyword plugin's patterns take time quadratic in a line's length (a 20,000-character line of "secret"
# took 36 s): long lines are scanned in overlapping windows, so a secret up to OVERLAP characters is still seen.
WINDOW, OVERLAP = 400, 120


class DetectSecretsScanner:
    """Reports the spans of secret values detect-secrets finds in a text, line by line."""

    def __init__(self) -> None:
        self._plugins: Optional[list] = None
        self._filters: list[Callable[[str], bool]] = []
        self._heuristic = None

    def _load(self) -> list:
        if self._plugins is None:
            try:
                heuristic = importlib.import_module("detect_secrets.filters.heuristic")
                plugins = [getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)()
                           for module, name in PLUGINS]
            except ImportError as exc:
                raise ImportError("detect-secrets is missing: pip install 'iflow-memory'") from exc
            self._heuristic = heuristic
            self._filters = [getattr(heuristic, name) for name in FILTERS]
            self._plugins = plugins
        return self._plugins

    def _kept(self, secret: str, line: str, plugin) -> bool:
        if any(check(secret) for check in self._filters):
            return False
        return not (self._heuristic.is_likely_id_string(secret, line, plugin)
                    or self._heuristic.is_indirect_reference(line))

    def __call__(self, text: str) -> list[tuple[int, int]]:
        """The (start, end) spans of every secret value found in `text`."""
        plugins = self._load()
        spans: list[tuple[int, int]] = []
        offset = 0
        for line in text.splitlines(keepends=True):
            for start, window in _windows(line):
                for plugin in plugins:
                    for found in plugin.analyze_line(filename=FILENAME, line=window, line_number=0):
                        secret = found.secret_value
                        if secret and self._kept(secret, window, plugin):
                            spans.extend(_occurrences(window, secret, offset + start))
            offset += len(line)
        return spans


def _windows(line: str) -> Iterable[tuple[int, str]]:
    if len(line) <= WINDOW:
        yield 0, line
        return
    for start in range(0, len(line) - OVERLAP, WINDOW - OVERLAP):
        yield start, line[start:start + WINDOW]


def _occurrences(line: str, secret: str, offset: int) -> Iterable[tuple[int, int]]:
    start = line.find(secret)
    while start >= 0:
        yield offset + start, offset + start + len(secret)
        start = line.find(secret, start + len(secret))


_SCANNER: Optional[DetectSecretsScanner] = None


def use_detect_secrets() -> Detector:
    """Add detect-secrets to this process's redaction (once); imported lazily, on the first scan."""
    global _SCANNER
    if _SCANNER is None:
        _SCANNER = DetectSecretsScanner()
    add_detector(_SCANNER)
    return _SCANNER
