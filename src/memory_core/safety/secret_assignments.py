"""Credentials written as settings: `DB_PASSWORD="a b"`, `password: x`, `<apiKey>x</apiKey>`, `ENV TOKEN x`.

A key counts when its last word names a credential (`AWS_SECRET_ACCESS_KEY`, `apiKey`, `PGPASSWORD`), not a
fact about one (`max_tokens`, `secret_name`, `token.markup`). A value counts unless it is a placeholder, a
type, a reference to another variable, or the next word of a sentence (`Password: rotate it monthly.`)."""

from __future__ import annotations

import re

from memory_core.safety.secret_patterns import REDACTED, LazyPattern

_KEYWORD = (r"(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|pass|passphrase|credentials?|"
            r"(?:private|access|account|auth|client|signing|encryption|master|session|app|shared)[_-]?key)")
_VALUE = (r"(?:[rRbBuUfF]{0,2}(?P<q>[\"'])(?P<quoted>(?:(?!(?P=q))[^\\\n]|\\.)*)(?P=q)"
          r"|(?P<bare>[^\s'\"`]+)(?![^\s'\"`])(?![ \t]*(?:=|:(?![/:]))))")
# key = value, key: value, "key": "value", key := value, key => value, key: str = value (a type hint).
_ASSIGNMENT = LazyPattern(
    r"(?i)(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z0-9_.-]{0,64}" + _KEYWORD + r"[A-Za-z0-9_.-]{0,64})(?P<sep>['\"]?[ \t]*"
    r"(?:(?P<compare>==|!=)=?|=>|:=|=|:[ \t]*[A-Za-z_][\w.]*(?:\[[\w., |]*\])?(?:[ \t]*\|[ \t]*None)?"
    r"[ \t]*=(?!=)|(?P<colon>:)(?![/:]))[ \t]*)" + _VALUE, needs=("=", ":"))  # every separator has one
_XML_ELEMENT = LazyPattern(
    r"(?i)(?P<open><(?P<key>[A-Za-z0-9_.:-]{0,64}" + _KEYWORD + r"[A-Za-z0-9_.:-]{0,64})>)"
    r"(?P<value>[^<\n]+)(?=</(?P=key)>)", needs=("</",))
_DOCKER_ENV = LazyPattern(
    r"(?m)(^[ \t]*ENV[ \t]+[A-Z0-9_]{0,64}(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY)"
    r"[ \t]+)(?!\[REDACTED\])[^\s'\"]+", needs=("ENV",))

_SECRET_WORDS = ("password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "credential",
                 "credentials")
_KEY_OWNERS = {"api", "private", "access", "account", "auth", "client", "signing", "encryption", "master",
               "session", "app", "shared", "secret"}
# `DB_PASS`, `SMTP_PASS`, but not `first_pass` or `bypass`.
_PASS_OWNERS = {"db", "database", "user", "smtp", "mysql", "postgres", "pg", "redis", "ftp", "sftp", "mail", "email",
                "admin", "root", "proxy", "http", "https", "basic", "auth", "login", "account", "key", "ldap", "vpn",
                "wifi", "ssh", "sql", "mongo", "rabbitmq", "amqp", "app", "api", "client", "service", "bind",
                "keystore", "truststore", "store", "cert", "pfx", "jks"}
# Words that may follow the credential's name and still name it (SECRET_KEY_BASE, DB_PASSWORD_PROD, PASSWORD2).
_QUALIFIERS = {"value", "base", "prod", "production", "dev", "development", "staging", "live", "test", "raw",
               "plain", "plaintext", "b64", "base64", "hex", "string", "str", "encoded", "enc", "old", "new",
               "current", "default", "local", "remote"}
_PLACEHOLDER = LazyPattern(
    r"(?i)^(?:[$%<{]|[a-z][a-z0-9+.-]*://|\[REDACTED\]|[*x._-]+$|…|your[-_ ]|placeholder"
    r"|(?:none|null|nil|true|false|undefined|empty|await|new|yield|and|or|not|if|in|is|lambda|read|write)$"
    r"|(?:os\.environ|os\.getenv|process\.env|env\.|ENV\[|settings\.|config\.|self\.|this\.|secrets\.)"
    r"|(?:str|bytes|int|bool|float|Any|SecretStr|SecretBytes|Optional|Union|Annotated|Literal|Required"
    r"|NotRequired|List|Dict|Sequence|Mapping|Callable|TypeAlias|list|dict|tuple)(?:\[|$)"
    r"|~?/|\.\.?/|[^(\[]*[(\[])")
_IDENTIFIER = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_PROSE_WORD = LazyPattern(r"[A-Za-z][A-Za-z'-]*([.,;:!?)]*)")


def _words(key: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", key)]


def secret_key(key: str) -> bool:
    """True when a setting's key names a credential (DB_PASSWORD, apiKey, AccountKey, --password)."""
    if key in ("PWD", "OLDPWD"):  # the shell's working directory
        return False
    words = _words(key.rsplit(".", 1)[-1])  # `token.markup` is an attribute of a token, not one
    while len(words) > 1 and (words[-1] in _QUALIFIERS or words[-1].isdigit()):
        words.pop()
    if not words:
        return False
    last = words[-1]
    return (last.endswith(_SECRET_WORDS) or (len(words) > 1 and last == "pass" and words[-2] in _PASS_OWNERS)
            or (len(words) > 1 and last == "key" and words[-2] in _KEY_OWNERS))


def _password_key(key: str) -> bool:
    return bool(re.search(r"(?i)pass|pwd", key))


def _reads_as_prose(match: re.Match) -> bool:
    """`Password: rotate it monthly.`, `api_key: API key for the service` and `the worker's credential: polling`
    are sentences; `password: hunter2`, `db_password: abc` and `password: abc  # old` are settings."""
    if not match.group("colon") or match.group("bare") is None:
        return False
    word = _PROSE_WORD.fullmatch(match.group("bare"))
    if word is None:
        return False
    if not _password_key(match.group("key")) and len(_words(match.group("key"))) == 1:
        return True  # `token: polling`; a random token has digits
    return bool(word.group(1)) or bool(re.match(r"[ \t]+[^\s#]", match.string[match.end():]))


def _not_a_value(value: str, quoted: bool, after: str = "") -> bool:
    """Empty, a placeholder (`None`, `$VAR`, `<token>`, `hf_...`), a type (`str`, `Key | None`), or a reference
    (`token=token`, `Name.Builtin`, `f(key=key,`)."""
    core = value if quoted else value.rstrip(",;:.)]}")
    if not core or _PLACEHOLDER.match(core) or core.endswith(("...", "…")) or not re.search(r"[A-Za-z0-9]", core):
        return True
    if _IDENTIFIER.fullmatch(core) is None:
        return False
    # `ENV_KEY = "ANTHROPIC_API_KEY"` names a variable; unquoted, so do `Name.Builtin`, `key,` and `Key | None`.
    argument = value[len(core):][:1] in (",", ")", "}", "]") or re.match(r"[ \t]*\|", after) is not None
    snake_case_name = re.fullmatch(r"[a-z]+(?:_[a-z]+)+", core) is not None  # `credentials = creds_file`
    return secret_key(core) or (not quoted and ("." in core or argument or snake_case_name))


def _keeps(match: re.Match) -> bool:
    """True when the matched setting is not a credential after all."""
    bare = match.group("bare")
    value = bare if bare is not None else match.group("quoted")
    if bare is not None and match.group("compare") is not None:
        return True  # `token == Literal` compares names
    if not secret_key(match.group("key")) or _not_a_value(value, bare is None, match.string[match.end():]):
        return True
    if bare is not None and not _password_key(match.group("key")) and re.fullmatch(r"\d{1,5}(?:\.\d+)?,?", bare):
        return True  # `token=11098`, `chars_per_token: float = 4.0`: counts, not credentials
    return _reads_as_prose(match)


def _assignment(match: re.Match) -> str:
    head = match.group("key") + match.group("sep")
    rest = match.group(0)[len(head):]
    if _keeps(match):
        return head + _ASSIGNMENT.sub(_assignment, rest)
    quote = match.group("q")
    if quote:
        return head + rest.split(quote, 1)[0] + quote + REDACTED + quote  # keeps a b"" / r"" prefix
    return head + REDACTED


def _element(match: re.Match) -> str:
    if not secret_key(match.group("key")) or _not_a_value(match.group("value").strip(), True):
        return match.group(0)
    return match.group("open") + REDACTED


# Every key pattern above contains one of these: a line without any is not searched (substring tests are cheap,
# the key pattern is not).
_TRIGGERS = ("pass", "pwd", "secret", "token", "key", "credential")


def _may_hold_setting(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _TRIGGERS)


def redact_assignments(text: str) -> str:
    """Replace the value of every credential written as a setting."""
    if not _may_hold_setting(text):
        return text
    text = _DOCKER_ENV.sub(r"\1" + REDACTED, text)
    text = _XML_ELEMENT.sub(_element, text)
    return "".join(_ASSIGNMENT.sub(_assignment, line) if _may_hold_setting(line) else line
                   for line in text.splitlines(keepends=True))
