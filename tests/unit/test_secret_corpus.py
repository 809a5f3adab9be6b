"""A corpus of secret formats, one or more per family, is caught by the core's own patterns alone (all the
session-start hook has), and stays caught with detect-secrets added; the real knowledge bank (265 entries) and
ordinary prose and code about secrets come through unchanged either way (issue 11, item 8; ADR 12)."""

from __future__ import annotations

import pytest

from memory_adapters.detect_secrets_scanner import DetectSecretsScanner
from memory_adapters.markdown_knowledge_bank import MarkdownKnowledgeBankReader
from memory_core.context_query import compose_context_query, display_query
from memory_core.legacy import format_legacy, legacy_select, shown_text
from memory_core.ports.context_source import ProjectContext
from memory_core.redaction import REDACTED, add_detector, detectors, redact_secrets, remove_detector
from tests.conftest import shared_fixture

KEY_BODY = "MIIEowIBAAKCAQEA7bq9FakeKeyMaterialOnlyForTestsQ2hlY2tSZWRhY3Rpb24"
HIGH_ENTROPY = "kX9vQ2mR7tL4pZ8wN3yB6cF1hJ5dG0sAuE7oIqW2"

# (family, text holding the secret, the secret part that must disappear)
CORPUS = [
    # Passwords inside URLs: no user, '/' or '@' inside, both, other schemes.
    ("url-no-user", "cache at redis://:R3disPass@cache.internal:6379/0", "R3disPass"),
    ("url-slash", "postgres://app:pa/ss9word@db.internal:5432/app", "pa/ss9word"),
    ("url-at", "postgres://app:p@ssw0rd@db.internal/app", "p@ssw0rd"),
    ("url-at-and-slash", "mongodb+srv://ops:ab@c/d9e@cluster0.example.invalid/db", "ab@c/d9e"),
    ("url-amqp", "amqp://guest:Gu3stPw@rabbit.internal:5672/", "Gu3stPw"),
    ("url-token-user", "https://x-access-token:Tok3nValue99@git.example.invalid/o/r.git", "Tok3nValue99"),
    ("url-short", "ftp://me:x@files.example.invalid/", "me:x@"),
    # Settings: quoted with spaces, short, type hints, other languages' syntax, values that look like keys.
    ("quoted-spaces", 'DB_PASSWORD="quoted value with spaces"', "quoted value with spaces"),
    ("single-quoted-spaces", "password = 'open sesame 42'", "open sesame 42"),
    ("short-after-equals", "PASSWORD=ab1", "ab1"),
    ("short-word-after-equals", "export DB_PASS=cat", "cat"),
    ("key-as-value", "secret: aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCY", "wJalrXUtnFEMIK7MDENGbPxRfiCY"),
    ("type-hint", 'password: str = "hunter2hunter2"', "hunter2hunter2"),
    ("go", 'apiKey := "q1w2e3r4t5y6"', "q1w2e3r4t5y6"),
    ("php", "'db_password' => 'Zx9!pq'", "Zx9!pq"),
    ("yaml-short", "password: abc", "abc"),
    ("json-escaped-quote", '{"client_secret": "ab\\"cd3f"}', 'ab\\"cd3f'),
    ("xml", "<password>Xml5ecret</password>", "Xml5ecret"),
    ("dockerfile", "ENV DB_PASSWORD Dock3rPw", "Dock3rPw"),
    ("pgpassword", "PGPASSWORD=pgSecr3t psql -h db", "pgSecr3t"),
    ("rails-secret-key-base", "SECRET_KEY_BASE=9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    ("odbc", "Server=db;Uid=sa;Pwd=Odbc5ecret;Database=app", "Odbc5ecret"),
    ("azure-storage", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIz+/==;"
     "EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4MTIz+/=="),
    ("azure-service-bus", "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;"
     "SharedAccessKey=c2VjcmV0S2V5VmFsdWU=", "c2VjcmV0S2V5VmFsdWU="),
    ("query-signature", "https://acct.blob.core.windows.net/c/b?sv=2022&sig=AbCd%2Bef123", "AbCd%2Bef123"),
    ("query-key", "https://maps.example.invalid/api?key=Qu3ryK3y&x=1", "Qu3ryK3y"),
    # Key material.
    ("pem", f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----", KEY_BODY),
    ("pem-encrypted", f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{KEY_BODY}\n-----END ENCRYPTED PRIVATE KEY-----",
     KEY_BODY),
    ("openssh", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----", KEY_BODY),
    ("pgp", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n{KEY_BODY}\n=a1B2\n"
     "-----END PGP PRIVATE KEY BLOCK-----", KEY_BODY),
    ("ssh2", f"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n{KEY_BODY}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----",
     KEY_BODY),
    ("pem-json-escaped", '{"private_key": "-----BEGIN PRIVATE KEY-----\\n' + KEY_BODY + '\\n-----END PRIVATE KEY-----'
     '\\n"}', KEY_BODY),
    ("pem-cut-off", f"-----BEGIN EC PRIVATE KEY-----\n{KEY_BODY}\n(the rest was cut)", KEY_BODY),
    ("putty", f"PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n{KEY_BODY}\nPrivate-MAC: 00ff", KEY_BODY),
    # Tokens named by their issuer.
    ("stripe-live", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe-restricted", "rk_test_51HaBcDeFgHiJkLmNoPq", "51HaBcDeFgHiJkLmNoPq"),
    ("stripe-webhook", "whsec_abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz012345"),
    ("npm", "//registry.npmjs.org/:_authToken=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
     "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    ("hugging-face", "HF token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567", "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"),
    ("pypi", "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
     "AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0"),
    ("openai-service-account", "sk-svcacct-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIjKlMnOpQrStUvWx"),
    ("github-app", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c838347Ae178B4a"),
    ("gitlab-deploy", "gldt-AbCdEfGhIjKlMnOpQrSt12", "AbCdEfGhIjKlMnOpQrSt12"),
    ("slack-app", "xapp-1-A0123BCDE-1234567890-abcdef", "A0123BCDE-1234567890-abcdef"),
    ("sendgrid", "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",
     "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"),
    ("google-oauth-secret", "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIjKlMnOpQrStUvWx"),
    ("digitalocean", "dop_v1_" + "ab12" * 16, "ab12" * 16),
    ("databricks", "dapi" + "0123456789abcdef" * 2, "0123456789abcdef" * 2),
    ("vault", "hvs.CAESIAbCdEfGhIjKlMnOpQrSt", "CAESIAbCdEfGhIjKlMnOpQrSt"),
    ("docker-hub", "dckr_pat_AbCdEfGhIjKlMnOpQrStUv", "AbCdEfGhIjKlMnOpQrStUv"),
    ("telegram", "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw8 here", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw8"),
    ("aws-key-in-prose", "rotate AKIAIOSFODNN7EXAMPLE today", "AKIAIOSFODNN7EXAMPLE"),
    # Webhook URLs whose path is the credential.
    ("slack-webhook", "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/AbCdEfGhIjKlMnOpQrStUvWx",
     "AbCdEfGhIjKlMnOpQrStUvWx"),
    ("discord-webhook", "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOpQr",
     "AbCdEf-GhIjKl_MnOpQr"),
    ("teams-webhook", "https://acme.webhook.office.com/webhookb2/1234abcd@5678efgh/IncomingWebhook/9a8b7c",
     "1234abcd@5678efgh"),
    # Command lines.
    ("mysql-attached", "mysql -u root -pS3cretPw app < dump.sql", "S3cretPw"),
    ("mysqldump-quoted", "mysqldump -h db -u admin -p'two words' app", "two words"),
    ("mysql-long", "mysql --user=root --password=Lng9Pw app", "Lng9Pw"),
    ("sshpass", "sshpass -p Ssh9Pass ssh deploy@host", "Ssh9Pass"),
    ("redis-cli", "redis-cli -h cache -a R3disCli ping", "R3disCli"),
    ("docker-login", "docker login -u bot -p D0ckerPw registry.example.invalid", "D0ckerPw"),
    ("curl-user", "curl -u admin:Curl9Pw https://api.example.invalid/", "Curl9Pw"),
    ("netrc", "machine api.example.invalid login me password N3trcPw", "N3trcPw"),
    ("flag-quoted", "tool --password 'long pass phrase' --verbose", "long pass phrase"),
    ("flag-token", "gh auth --token Tok3n-Value", "Tok3n-Value"),
    # Headers.
    ("authorization-token", "Authorization: Token 0123456789abcdefABCDEF", "0123456789abcdefABCDEF"),
    ("api-key-header", "X-Api-Key: 9f8e7d6c5b4a3f2e1d0c", "9f8e7d6c5b4a3f2e1d0c"),
    ("private-token-header", "PRIVATE-TOKEN: AbCd1234EfGh5678", "AbCd1234EfGh5678"),
]

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


@pytest.mark.parametrize("text,secret", [(t, s) for _, t, s in CORPUS], ids=[k for k, _, _ in CORPUS])
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
