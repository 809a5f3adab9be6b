"""Which database the entries live in, and that its password never reaches a file or a screen."""

from __future__ import annotations

import os

import pytest

from memory_apps.config import CONFIG_RELATIVE_PATH, load_config
from memory_apps.database_url import (
    DATABASE_URL_ENV, DatabaseUrlError, carries_password, choose_database, mask_database_url, without_password,
)

SECRET = "s3cr3t-Pa55"


def write_config(root, text: str) -> None:
    path = root / CONFIG_RELATIVE_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_without_a_url_the_store_is_sqlite():
    choice = choose_database("", environ={})
    assert not choice.is_postgres and choice.describe() == "SQLite"


def test_the_environment_wins_over_the_config_file():
    env = {DATABASE_URL_ENV: f"postgresql://team:{SECRET}@db.example:5432/memory"}
    choice = choose_database("postgresql://me@localhost/other", environ=env)
    assert choice.url == env[DATABASE_URL_ENV] and choice.origin == DATABASE_URL_ENV
    assert choose_database("postgresql://me@localhost/other", environ={}).origin == "memory_database_url"


@pytest.mark.parametrize("url", [
    f"postgresql://team:{SECRET}@db.example:5432/memory",
    f"postgres://team:{SECRET}@[::1]/memory?sslmode=require",
    f"postgresql://team@db.example/memory?password={SECRET}&application_name=x",
])
def test_a_shown_url_never_holds_the_password(url):
    shown = choose_database("", environ={DATABASE_URL_ENV: url}).describe()
    assert SECRET not in shown and "***" in shown
    assert "db.example" in shown or "::1" in shown


def test_masking_keeps_a_url_without_password_as_it_is():
    assert mask_database_url("postgresql://team@db.example/memory") == "postgresql://team@db.example/memory"


@pytest.mark.parametrize("url", ["mysql://x@y/z", "memory.db", "postgresql://h:notaport/db"])
def test_a_url_that_is_not_postgresql_is_refused_by_name(url):
    with pytest.raises(DatabaseUrlError) as caught:
        choose_database("", environ={DATABASE_URL_ENV: url})
    assert SECRET not in str(caught.value)


def test_a_password_in_the_config_file_is_dropped_with_a_warning_that_does_not_repeat_it(tmp_path, capsys):
    write_config(tmp_path, f"memory_database_url: postgresql://team:{SECRET}@db.example/memory\n")
    settings = load_config(str(tmp_path))
    err = capsys.readouterr().err
    assert settings.database_url == "postgresql://team@db.example/memory"
    assert "PGPASSWORD" in err and SECRET not in err
    assert not carries_password(settings.database_url)


def test_a_config_url_of_another_kind_warns_and_leaves_sqlite(tmp_path, capsys):
    write_config(tmp_path, "memory_database_url: mysql://team@db.example/memory\n")
    assert load_config(str(tmp_path)).database_url == ""
    assert "postgresql://" in capsys.readouterr().err


def test_a_password_parameter_is_removed_too():
    url = without_password(f"postgresql://team@db/memory?password={SECRET}&sslmode=require")
    assert SECRET not in url and "sslmode=require" in url and not carries_password(url)


def test_the_process_environment_is_read_when_none_is_given(monkeypatch):
    monkeypatch.setitem(os.environ, DATABASE_URL_ENV, "postgresql://me@localhost/memory")
    assert choose_database("").url == "postgresql://me@localhost/memory"


@pytest.mark.parametrize("url", [
    f"postgresql://team:{SECRET}/x@db.example/memory",  # a slash in the password
    f"postgresql://team:{SECRET}#1@db.example/memory",  # a hash
    f"host=db.example user=team password='{SECRET} x'",  # libpq's key=value form, quoted
    f"postgresql://team@db.example/memory?PASSWORD={SECRET}",
])
def test_odd_passwords_are_masked_whole(url):
    shown = mask_database_url(url)
    assert SECRET not in shown and "***" in shown and "db.example" in shown


def test_an_error_that_quotes_the_password_is_scrubbed():
    from memory_adapters.store.postgres.connection import scrubbed

    url = "postgresql://team:p%zz" + SECRET + "@db.example/memory"
    assert SECRET not in scrubbed(f'invalid percent-encoded token: "p%zz{SECRET}"', url)
