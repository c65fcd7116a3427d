"""Java regexes in Python (translate or refuse), and the allow-list that keeps credentials out."""

from __future__ import annotations

import re

import pytest

from kafka_lineage.connectors.javaregex import UnsupportedRegex, compile_java
from kafka_lineage.model.connector_keys import kept_config, strip_userinfo, wanted


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        (r"\d+", ["123"], ["١٢٣"]),  # Java's \d is ASCII unless UNICODE_CHARACTER_CLASS
        (r"(?i)orders", ["ORDERS"], ["ORDER\u017f"]),  # Java folds ASCII only without (?u)
        (r"(?<db>[a-z]+)\.\k<db>", ["a.a"], ["a.b"]),
        (r"\Qa.b\E", ["a.b"], ["axb"]),
        (r"[\Q-]\E]+", ["-]"], ["a"]),
        (r"\p{Alpha}+\P{Digit}", ["ab_"], ["ab1"]),
        (r"[\p{Digit}x]+", ["1x"], ["y"]),
        (r"a\z", ["a"], ["a\n"]),
        (r"a\Z\n?", ["a", "a\n"], ["a\n\n"]),  # \Z: before a final line terminator too
        (r"a\hb", ["a b", "a\u3000b"], ["a\nb"]),
        (r"a++b", ["aab"], ["aa"]),
        (r"(?>a|ab)c", ["ac"], ["abc"]),
        (r"[]a]+", ["]a"], ["b"]),
        (r"[^]a]", ["b"], ["]"]),
        (r"[\w-.]+", ["a-b.c"], ["a/b"]),  # Java: \w, '-' and '.', not a range
        (r"[\p{Digit}-x]+", ["1-x"], ["y"]),
        (r"\p{IsDigit}+", ["12"], ["a"]),  # Java's `Is` prefix of a POSIX class
        (r"[\v]", ["\n", "\u2028"], [" "]),
        (r"a\Vb", ["a b"], ["a\nb"]),
    ],
)
def test_java_semantics(pattern, matches, misses):
    compiled = compile_java(pattern)
    for text in matches:
        assert compiled.fullmatch(text), (pattern, text)
    for text in misses:
        assert not compiled.fullmatch(text), (pattern, text)


@pytest.mark.parametrize(
    "pattern",
    [
        r"[a-z&&[^e]]",  # intersection
        r"[a[b]]",  # union by nesting
        r"a(?i)b",  # Java scopes mid-pattern flags; Python 3.11 rejects them
        r"(?x)a b",  # comments mode differs inside classes
        r"(?u)a",  # Unicode case folding
        r"\p{L}+",  # Unicode properties
        r"\R",
        r"a\G",
        "(",
        "a\\",
        "[abc",
    ],
)
def test_refused_patterns(pattern):
    with pytest.raises(UnsupportedRegex):
        compile_java(pattern)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"\k<name", "unterminated \\k<name>"),
        (r"\kx", "bad escape \\k"),  # \k without a name: copied, and Python refuses it too
        (r"\pL", "bad escape \\p"),  # a one-letter property (no braces): likewise
        (r"[\P{Digit}]", "a negated property inside a class"),
        (r"[\H]", "\\H inside a class"),
        (r"[\Z]", "bad escape \\Z"),  # Java's \Z means nothing inside a class: copied, refused by Python
        (r"(?q)a", "unknown inline flag"),
        (r"(?-i)a", "turning flags off"),
        (r"a\X", "grapheme cluster"),
    ],
)
def test_each_refusal_says_why(pattern, reason):
    # Given a Java construct with no faithful Python form, When it is compiled, Then the error names it
    with pytest.raises(UnsupportedRegex, match=re.escape(reason)):
        compile_java(pattern)


def test_the_allow_list_keeps_what_lineage_needs_and_drops_every_credential():
    config = {
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "topics": "a",
        "database.hostname": "db",
        "database.user": "admin",
        "database.password": "hunter2",
        "sasl.jaas.config": 'org.apache.kafka...ScramLoginModule required password="hunter3";',
        "iceberg.catalog.s3.secret-access-key": "hunter4",
        "iceberg.catalog.credential": "hunter5",
        "iceberg.table.lake.orders.route-regex": "orders",
        "iceberg.table.lake.password_resets.route-regex": "pw",
        "transforms": "route",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.password": "hunter6",
        "mongodb.connection.string": "mongodb+srv://u:hunter7@h1:27017,h2/db?authMechanismProperties=AWS_SESSION_TOKEN:x",
    }
    kept = kept_config(config)
    assert "hunter" not in repr(kept)
    assert set(kept) == {
        "connector.class",
        "topics",
        "database.hostname",
        "iceberg.table.lake.orders.route-regex",
        "iceberg.table.lake.password_resets.route-regex",
        "transforms",
        "transforms.route.type",
        "mongodb.connection.string",
    }
    assert kept["mongodb.connection.string"] == "mongodb+srv://h1:27017,h2"
    assert not wanted("database.user")


def test_user_information_is_stripped_from_any_uri():
    assert strip_userinfo("jdbc:mysql://root:pw@h:3306/db, http://a@b") == "jdbc:mysql://h:3306/db, http://b"
