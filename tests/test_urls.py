"""Credentials never leave a connection string that Verso stores or shows (issue 35, item 3)."""
from __future__ import annotations

import pytest

from engine.urls import strip_credentials, strip_in


@pytest.mark.parametrize("given, stored", [
    ("postgresql://u@h/db?tm=X&password=secret", "postgresql://u@h/db?tm=X"),
    ("postgresql://u:secret@h:5432/db?tm=X", "postgresql://u@h:5432/db?tm=X"),
    ("postgresql://u:s%40cret@h/db", "postgresql://u@h/db"),
    ("postgresql://:secret@h/db", "postgresql://h/db"),
    ("postgresql://u:p@ss@h1:5432,h2:5433/db?tm=x", "postgresql://u@h1:5432,h2:5433/db?tm=x"),
    ("postgresql://u@h/db?sslmode=require&sslpassword=keypass&tm=X", "postgresql://u@h/db?sslmode=require&tm=X"),
    ("postgresql://u@h/db?PASSWORD=a&oauth_client_secret=b&tm=X", "postgresql://u@h/db?tm=X"),
    ("postgresql://u@h/db?password=only", "postgresql://u@h/db"),
    ("postgres://u:secret@[::1/db?tm=x", "postgres://u@[::1/db?tm=x"),  # malformed, still stripped
    ("tm=X&password=secret", "tm=X"),                # the query part older training records kept
    ("host=h password='a b\\'c' dbname=d", "host=h dbname=d"),   # libpq keyword/value
    ("postgresql://u@h/db?tm=X", "postgresql://u@h/db?tm=X"),
    ("/home/ann/tms/legal", "/home/ann/tms/legal"),
    ("Tom & Jerry.tmx", "Tom & Jerry.tmx"),
    ("passwords&notes.csv", "passwords&notes.csv"),
    ("ann@example.org", "ann@example.org"),
])
def test_a_password_is_stripped_from_every_form_of_connection_string(given, stored):
    assert strip_credentials(given) == stored
    assert "secret" not in strip_credentials(given) and "keypass" not in strip_credentials(given)


def test_every_string_of_a_record_is_stripped():
    rec = {"request": {"tms": ["postgresql://u:pw@h/db?tm=a", "tm=b&password=pw"]},
           "data": {"per_source": [["tm=b&sslpassword=pw", 3]]}, "n": 1}
    assert strip_in(rec) == {"request": {"tms": ["postgresql://u@h/db?tm=a", "tm=b"]},
                             "data": {"per_source": [["tm=b", 3]]}, "n": 1}
