"""The core's own secret shapes (stdlib `re` only), so every path, the session-start hook included, redacts
without importing a scanner. Each shape is a family, not one example: see docs/adr/0012-secret-detection.md."""

from __future__ import annotations

import re
from typing import Callable, Optional, Union

REDACTED = "[REDACTED]"


class LazyPattern:
    """A regular expression compiled on its first use: the session-start hook imports these shapes, and most
    texts never reach most of them (their trigger words are absent), so their compile time is not paid.
    With `needs` (strings, or a function giving them on first use), `sub` leaves a text holding none of those
    strings as it is, without compiling (the pattern cannot match it: see memory_core.safety.required_literals)."""

    def __init__(self, source: str, flags: int = 0,
                 needs: Union[tuple[str, ...], Callable[[], tuple[str, ...]]] = ()) -> None:
        self._source, self._flags, self._needs = source, flags, needs
        self._pattern: Optional[re.Pattern] = None

    def __getattr__(self, name: str):
        if self._pattern is None:
            self._pattern = re.compile(self._source, self._flags)
        return getattr(self._pattern, name)

    def required_literals(self) -> tuple[str, ...]:
        """The strings one of which a text must hold to be searched at all; () when every text is."""
        if callable(self._needs):
            self._needs = self._needs()
        return self._needs

    def sub(self, repl, string: str, count: int = 0) -> str:
        """`re.Pattern.sub`, ruling out a text that holds none of `needs` first."""
        needs = self.required_literals()
        if needs and not any(map(string.__contains__, needs)):  # C-level: no frame per literal
            return string
        return self.__getattr__("sub")(repl, string, count)


# Key material in blocks: PEM, OpenSSH, PGP ("... PRIVATE KEY BLOCK"), SSH2 ("---- BEGIN ... ----"). A cut-off
# block loses its header line and every key-body line after it (headers, base64, a PGP checksum).
PRIVATE_KEY_BLOCK = LazyPattern(
    r"-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*?-{4,5}"
    r"(?:.*?-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*?-{4,5}"
    r"|[^\n]*(?:\n(?:[A-Za-z-]+: [^\n]*|[A-Za-z0-9+/=]{16,}[^\n]*|=[A-Za-z0-9+/]{4}"
    r"|[ \t]*(?=\n[A-Za-z0-9+/=]{16,})))*)",
    re.DOTALL)
PUTTY_PRIVATE_LINES = LazyPattern(r"(Private-Lines: *\d+\s*\n)(?:[A-Za-z0-9+/=]+[ \t]*(?:\n|\Z))+")

# Tokens whose prefix names the issuer; the body length keeps the bare prefix (prose about "npm_") safe.
_TOKEN_SHAPES = [
    r"sk-ant-[A-Za-z0-9_-]{16,}",  # Anthropic
    r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI (sk-proj-, sk-svcacct-, sk-admin-), OpenRouter, DeepSeek
    r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}", r"whsec_[A-Za-z0-9]{20,}",  # Stripe
    r"AIza[0-9A-Za-z_-]{30,}", r"GOCSPX-[A-Za-z0-9_-]{20,}", r"ya29\.[A-Za-z0-9_-]{20,}",  # Google
    r"1//0[A-Za-z0-9_-]{30,}",  # Google refresh token
    r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}", r"github_pat_[A-Za-z0-9_]{30,}",  # GitHub
    r"gl(?:pat|dt|rt|ptt|ft|cbt|oas|imt|soat|agent)-[A-Za-z0-9_-]{20,}",  # GitLab
    r"xox[abposre]-[A-Za-z0-9-]{10,}", r"xapp-\d-[A-Za-z0-9-]{10,}",  # Slack
    r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",  # AWS access key ids
    r"pa-[A-Za-z0-9_-]{30,}",  # Voyage
    r"npm_[A-Za-z0-9]{30,}", r"pypi-AgE[A-Za-z0-9_-]{40,}",  # package registries
    r"hf_[A-Za-z0-9]{30,}", r"api_org_[A-Za-z0-9]{30,}", r"r8_[A-Za-z0-9]{30,}",  # Hugging Face, Replicate
    r"gsk_[A-Za-z0-9]{40,}", r"pplx-[A-Za-z0-9]{40,}", r"xai-[A-Za-z0-9]{40,}",  # Groq, Perplexity, xAI
    r"dapi[0-9a-f]{32}", r"hv[sbr]\.[A-Za-z0-9_-]{20,}", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{40,}",
    r"do[opr]_v1_[a-f0-9]{64}", r"dp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{30,}",  # DigitalOcean, Doppler
    r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",  # Shopify, Postman
    r"lin_api_[A-Za-z0-9]{40}", r"ntn_[A-Za-z0-9]{40,}", r"secret_[A-Za-z0-9]{43}",  # Linear, Notion
    r"sntr[ysu]_[A-Za-z0-9_=+/-]{30,}", r"glc_[A-Za-z0-9+/=_-]{30,}", r"glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}",
    r"NRAK-[A-Z0-9]{27}", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}", r"key-[0-9a-f]{32}",  # SendGrid, Mailgun
    r"[0-9a-f]{32}-us\d{1,2}", r"SK[0-9a-fA-F]{32}",  # Mailchimp, Twilio
    r"\d{8,10}:AA[A-Za-z0-9_-]{30,}",  # Telegram bot
    r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}", r"EAAA[A-Za-z0-9_-]{60,}",  # Square
    r"ATATT3[A-Za-z0-9_=-]{50,}", r"AGE-SECRET-KEY-1[0-9A-Z]{50,}", r"dckr_pat_[A-Za-z0-9_-]{20,}",
    r"tskey-[a-z]+-[A-Za-z0-9-]{20,}", r"sbp_[a-f0-9]{40}", r"fo1_[A-Za-z0-9_-]{30,}", r"LTAI[A-Za-z0-9]{12,20}",
    r"AKCp[A-Za-z0-9]{60,}",  # Artifactory
    r"[A-Za-z0-9_~.-]{3}[78]Q~[A-Za-z0-9_~.-]{31,34}",  # Azure AD client secret
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JWT
]
VENDOR_TOKEN = LazyPattern(r"(?<![A-Za-z0-9])(?:" + "|".join(_TOKEN_SHAPES) + r")",
                           needs=lambda: _any_required(_TOKEN_SHAPES))

# Secrets pasted without their key name: the 40-character AWS secret access key and the 88-character Azure
# storage account key ("...=="). Bounded by characters no base64 run continues with (a '.' only at a sentence's
# end), then judged by `_bare_key` (an identifier or a path of the same length is words, not noise).
BARE_KEY = LazyPattern(r"(?<![A-Za-z0-9/+=_.-])(?:[A-Za-z0-9/+]{40}|[A-Za-z0-9/+]{86}==)"
                       r"(?![A-Za-z0-9/+=_-]|\.[A-Za-z0-9])")
_WORD_PIECES = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _bare_key(match: re.Match) -> str:
    """Redact a base64 run that mixes capitals, small letters and digits in short pieces (random), and keep
    one made of words (`ThisIsAVeryLongClassNameWithNumbers12345`, `src/Components/UserProfile/Avatar2Image1`)
    and a hex digest (no capitals)."""
    text = match.group(0)
    if not (re.search(r"[A-Z]", text) and re.search(r"[a-z]", text) and re.search(r"[0-9]", text)):
        return text
    short = sum(1 for piece in _WORD_PIECES.findall(text) if len(piece) <= 2)
    return REDACTED if short * 8 >= len(text) else text


# Webhook URLs whose path is the credential: the host stays, the path goes.
WEBHOOK_PATH = LazyPattern(
    r"(?i)((?:hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/webhooks/"
    r"|\.webhook\.office\.com/webhookb2/|outlook\.office\.com/webhook/|hooks\.zapier\.com/hooks/catch/"
    r"|api\.telegram\.org/bot))[^\s'\"<>)]+")

# scheme://[user]:password@host. The password runs to the last '@' of the token that a host follows (within
# 256 characters), so '/' and '@' inside it are covered; "host:8080/path@x" is a port, not a password.
URL_PASSWORD = LazyPattern(
    r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@'\"<>]*):(?!\d+(?:[/?#'\"<>\s]|$))[^\s'\"<>]{1,256}@(?=[A-Za-z0-9\[])")

# Authorization headers and query-string credentials.
AUTH_SCHEME = LazyPattern(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}")
AUTH_HEADER = LazyPattern(r"(?i)\b(authorization\s*[:=]\s*['\"]?(?:token|bot|digest|apikey)\s+)[^\s'\"]{8,}")
QUERY_CREDENTIAL = LazyPattern(
    r"(?i)([?&;](?:sig|signature|x-amz-signature|x-amz-security-token|x-amz-credential|x-goog-signature"
    r"|x-goog-credential|key|auth)=)(?!\[REDACTED\])[^&\s#'\"<>]+")

_CLI_VALUE = r"(?!\[REDACTED\])(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"
# Command lines: `mysql -pPASS`, `sshpass -p PASS`, `redis-cli -a PASS`, `docker login -p PASS`,
# `curl -u user:PASS`, a .netrc's `machine h login u password PASS`.
MYSQL_PASSWORD = LazyPattern(r"(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh"
                            r"|mariadb|mariadb-dump|mariadb-admin)\b[^\n|;&]{0,200}?\s-p)" + _CLI_VALUE)
SSHPASS_PASSWORD = LazyPattern(r"(\bsshpass\b[^\n|;&]{0,200}?\s-p\s*)" + _CLI_VALUE)
REDIS_PASSWORD = LazyPattern(r"(\bredis-cli\b[^\n|;&]{0,200}?\s(?:-a|--pass)\s+)" + _CLI_VALUE)
LOGIN_PASSWORD = LazyPattern(r"(\b(?:docker|podman|nerdctl|buildah|helm|oras|skopeo)\b[^\n|;&]{0,200}?\blogin\b"
                            r"[^\n|;&]{0,200}?\s(?:-p|--password)\s+)" + _CLI_VALUE)
CURL_PASSWORD = LazyPattern(r"(\b(?:curl|wget|http)\b[^\n|;&]{0,200}?\s(?:-u|--user)[\s=]+['\"]?[^\s:'\"]*:)"
                           r"(?!\[REDACTED\])[^\s'\"]+")
NETRC_PASSWORD = LazyPattern(r"(\bmachine\s+\S+\s+login\s+\S+\s+password\s+)(?!\[REDACTED\])\S+")

# Long flags that take a credential as the next word: `--password 'x y'`, `--token abc123`.
FLAG_VALUE = LazyPattern(
    r"(?i)((?<!\S)--(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api-?key|access-key|secret-key"
    r"|auth-token)\s+)('[^'\n]+'|\"[^\"\n]+\"|(?![-$<{])[^\s'\"]+)")


def _any_required(sources: list[str]) -> tuple[str, ...]:
    from memory_core.safety.required_literals import any_required  # on the first text only

    return any_required(sources)


def _flag(match: re.Match) -> str:
    value = match.group(2)
    if value[0] in "'\"":
        return match.group(1) + value[0] + REDACTED + value[0]
    # `--token flag` and `--password prompts` are prose; a credential has a digit, a capital or a symbol.
    return match.group(0) if re.fullmatch(r"[a-z]+[.,;:)]*", value) else match.group(1) + REDACTED


Replacement = Union[str, Callable[[re.Match], str]]
# (any of these lower-case words must occur in the text, the pattern, its replacement), in the order they run:
# a trigger skips a pattern that cannot match, so ordinary prose costs a few substring tests.
SHAPES: list[tuple[tuple[str, ...], LazyPattern, Replacement]] = [
    (("private key",), PRIVATE_KEY_BLOCK, REDACTED),
    (("private-lines",), PUTTY_PRIVATE_LINES, r"\1" + REDACTED + "\n"),
    (("hooks.", "webhook", "telegram.org"), WEBHOOK_PATH, r"\1" + REDACTED),
    (("://",), URL_PASSWORD, r"\1:" + REDACTED + "@"),
    ((), VENDOR_TOKEN, REDACTED),
    ((), BARE_KEY, _bare_key),
    (("bearer", "basic"), AUTH_SCHEME, r"\1 " + REDACTED),
    (("authorization",), AUTH_HEADER, r"\1" + REDACTED),
    (("=",), QUERY_CREDENTIAL, r"\1" + REDACTED),
    (("mysql", "mariadb"), MYSQL_PASSWORD, r"\1" + REDACTED),
    (("sshpass",), SSHPASS_PASSWORD, r"\1" + REDACTED),
    (("redis-cli",), REDIS_PASSWORD, r"\1" + REDACTED),
    (("login",), LOGIN_PASSWORD, r"\1" + REDACTED),
    (("-u", "--user"), CURL_PASSWORD, r"\1" + REDACTED),
    (("machine",), NETRC_PASSWORD, r"\1" + REDACTED),
    (("--",), FLAG_VALUE, _flag),
]


def redact_shapes(text: str) -> str:
    """Replace every fixed-shape secret (key blocks, tokens, URL passwords, headers, command lines)."""
    lowered = text.lower()
    for triggers, pattern, replacement in SHAPES:
        if not triggers or any(t in lowered for t in triggers):
            text = pattern.sub(replacement, text)
    return text
