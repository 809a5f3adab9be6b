"""A corpus of secret formats, one or more per family, is caught by the core's own patterns alone (all the
session-start hook has), and stays caught with detect-secrets added; the real knowledge bank (265 entries) and
ordinary prose and code about secrets come through unchanged either way (issue 11, item 8; ADR 12).

The corpus is the `corpus` table of secret_samples.toml."""

from __future__ import annotations

import pytest

from memory_adapters.detect_secrets_scanner import DetectSecretsScanner
from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
from memory_core.ranking.context_query import compose_context_query, display_query
from memory_core.ranking.legacy import format_legacy, legacy_select, shown_text
from memory_core.ports.context_source import ProjectContext
from memory_core.safety.redaction import REDACTED, add_detector, detectors, redact_secrets, remove_detector
from tests.conftest import shared_fixture
from tests._secret_samples import secret_cases

HIGH_ENTROPY = "kX9vQ2mR7tL4pZ8wN3yB6cF1hJ5dG0s"  # not 40 long: that is an AWS secret key's shape

# Prose and code about secrets that holds none: nothing may change.
NOT_SECRETS = [
    "Password: rotate it monthly.",
    "Set the token: expires after one hour, then refresh.",
    "max_tokens=4096 and token_type=bearer are request settings.",
    "secret_name: db-credentials",
    "Serve the scoped package from http://localhost:4873/@acme/ui for local tests.",
    "Never pass --password on the command line; prefer --password-file.",
    "mysql -u root -p prompts for the password.",
    "def connect(host, password=None):",
    "password = os.environ['DB_PASSWORD']",
    "token = request.headers['Authorization']",
    "api_key: str | None = None",
    "if token == Literal:",
    "tokenizer = AutoTokenizer.from_pretrained(name)",
    "PWD=/home/me/src/app",
    "first_pass = True",
    'client = Client(api_key=api_key, timeout=30)',
    "Use ${{ secrets.NPM_TOKEN }} in the workflow, never a literal.",
    'Put a placeholder in the sample: DB_PASSWORD="<your-password>" or API_KEY=...',
    "The hf_ prefix marks Hugging Face tokens; sk_live_ marks Stripe live keys; npm_ marks npm tokens.",
    "Webhook URLs live under https://hooks.slack.com/services/ and must stay out of the repo.",
    "-----BEGIN CERTIFICATE----- blocks are public.",
    "A commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it.",
    "ThisIsAVeryLongClassNameWithNumbers12345 is forty characters of words.",
    "See src/Components/UserProfile/Avatar2Image1 for the avatar.",
    "Checksum 9FCEB02D0AE598E95DC970B74767F19372D61AF8, version v1.2.3.",
]


@pytest.fixture(params=["core", "with-detect-secrets"])
def pipeline(request):
    """Redaction as the hook has it (the core's patterns only) and as the write paths have it (plus detect-secrets)."""
    saved = detectors()
    for detector in saved:
        remove_detector(detector)
    scanner = DetectSecretsScanner() if request.param == "with-detect-secrets" else None
    if scanner is not None:
        add_detector(scanner)
    yield request.param
    if scanner is not None:
        remove_detector(scanner)
    for detector in saved:
        add_detector(detector)


@pytest.mark.parametrize("text,secret", secret_cases("corpus"))
def test_every_secret_format_is_redacted(pipeline, text, secret):
    redacted = redact_secrets(text)
    assert secret not in redacted, redacted
    assert REDACTED in redacted
    assert redact_secrets(redacted) == redacted, "redaction is idempotent"


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_prose_and_code_about_secrets_is_unchanged(pipeline, text):
    assert redact_secrets(text) == text


def test_the_knowledge_bank_passes_through_unchanged(pipeline):
    """Every text of every entry of the real bank, and the markdown pipeline's block built from all of them."""
    entries = MarkdownKnowledgeBankReader(warn_unknown=False).read(str(shared_fixture("knowledge-bank", "head")),
                                                                     "local")
    assert len(entries) == 265
    changed = {}
    for entry in entries:
        texts = [entry.raw_text, entry.name, entry.description, entry.reasoning or "", *entry.details,
                 *entry.references, *entry.keywords]
        changed.update({entry.name: text for text in texts if redact_secrets(text) != text})
        draft = entry.to_draft("project")
        if (draft.description, draft.reasoning) != (entry.description, "\n".join(
                ([entry.reasoning] if entry.reasoning else []) + entry.details)):
            changed[entry.name] = "stored text differs"
    assert changed == {}
    assert [e.name for e in entries if shown_text(e.raw_text) != e.raw_text] == []
    assert REDACTED not in format_legacy(legacy_select(entries, len(entries)))


def test_detect_secrets_adds_what_the_core_does_not_know():
    """A random quoted string under no telling name: only the scanner sees it (the write paths add it)."""
    text = f'seed = "{HIGH_ENTROPY}"'
    assert redact_secrets(text, scanners=False) == text
    scanner = DetectSecretsScanner()
    add_detector(scanner)
    try:
        assert redact_secrets(text) == f'seed = "{REDACTED}"'
        assert redact_secrets(text, scanners=False) == text
    finally:
        remove_detector(scanner)


def test_a_secret_in_a_spec_stays_out_of_the_context_query():
    """The query is built from the feature spec, printed in the diagnostic line and may be sent to an embedder."""
    context = ProjectContext(feature_slug="deploy", changed_files=["deploy.sh"],
                             feature_description="PASSWORD=Qz7!x then postgres://app:pa/ss9word@db.internal/app")
    query = compose_context_query(context)
    assert "Qz7!x" not in query and "pa/ss9word" not in query
    assert display_query(query, width=200) == (
        "deploy: PASSWORD=[REDACTED] then postgres://app:[REDACTED]@db.internal/app. Files: deploy.sh")
