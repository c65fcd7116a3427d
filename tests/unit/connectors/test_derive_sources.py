"""Debezium source connectors: the first hop, source database table -> topic, named per OpenLineage."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_lineage.config import Source
from kafka_lineage.connectors import derive
from kafka_lineage.connectors.config_values import split_regex_list
from kafka_lineage.model.connectors import ConnectorConfig
from kafka_lineage.model.topics import TopicKey

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/orders-cluster/11111111-2222"
MYSQL = "io.debezium.connector.mysql.MySqlConnector"
POSTGRES = "io.debezium.connector.postgresql.PostgresConnector"
SQLSERVER = "io.debezium.connector.sqlserver.SqlServerConnector"
ORACLE = "io.debezium.connector.oracle.OracleConnector"
MONGODB = "io.debezium.connector.mongodb.MongoDbConnector"


def source(**extra: Any) -> Source:
    return Source.model_validate({"registryName": "cdc", "clusterArn": CLUSTER_ARN, **extra})


def cdc(cls: str, name: str = "cdc", **config: str) -> ConnectorConfig:
    return ConnectorConfig(
        name=name,
        arn=f"arn:aws:kafkaconnect:eu-west-1:123456789012:connector/{name}/abc",
        cluster_name="orders-cluster",
        bootstrap_servers=("b-1.orders:9098",),
        state="RUNNING",
        connector_class=cls,
        config={"connector.class": cls, **config},
    )


def first_hops(connector: ConnectorConfig, *topics: str) -> dict[str, tuple[str, str]]:
    derived = derive([connector], [TopicKey("cdc", t) for t in topics], [source()])
    return {edge.key.topic: (edge.dataset_namespace, edge.dataset_name) for edge in derived.sources}


def test_mysql_topics_name_database_and_table_and_skip_bookkeeping_topics():
    # Given a Debezium 2.x MySQL connector (topic.prefix) and its topics, bookkeeping ones included
    connector = cdc(
        MYSQL, **{"topic.prefix": "inv", "database.hostname": "mysql.internal", "database.port": "3307"}
    )
    hops = first_hops(
        connector,
        "inv.shop.orders",
        "inv",  # schema changes
        "inv.transaction",
        "__debezium-heartbeat.inv",
        "other.shop.orders",
        "inv.shop",
    )
    # Then only the table topic is a first hop: mysql://host:port, {database}.{table}
    assert hops == {"inv.shop.orders": ("mysql://mysql.internal:3307", "shop.orders")}


def test_the_job_is_the_connector_and_columns_are_left_to_the_topic():
    derived = derive(
        [cdc(MYSQL, **{"topic.prefix": "inv", "database.hostname": "h"})],
        [TopicKey("cdc", "inv.shop.orders")],
        [source()],
    )
    (edge,) = derived.sources
    assert (edge.job_namespace, edge.job_name, edge.connector, edge.columns) == (
        "kafka-connect://orders-cluster",
        "cdc",
        "cdc",
        (),
    )


def test_postgres_names_database_schema_table_with_the_default_port():
    connector = cdc(
        POSTGRES, **{"topic.prefix": "pg", "database.hostname": "pg.internal", "database.dbname": "shop"}
    )
    assert first_hops(connector, "pg.public.orders", "pg.orders") == {
        "pg.public.orders": ("postgres://pg.internal:5432", "shop.public.orders")
    }


def test_sql_server_2x_topics_carry_the_database_and_1x_take_it_from_dbname():
    modern = cdc(
        SQLSERVER, **{"topic.prefix": "mss", "database.hostname": "sql", "database.names": "sales, hr"}
    )
    assert first_hops(modern, "mss.sales.dbo.orders", "mss.other.dbo.orders") == {
        "mss.sales.dbo.orders": ("mssql://sql:1433", "sales.dbo.orders")
    }
    legacy = cdc(
        SQLSERVER, **{"database.server.name": "mss", "database.hostname": "sql", "database.dbname": "sales"}
    )
    assert first_hops(legacy, "mss.dbo.orders") == {
        "mss.dbo.orders": ("mssql://sql:1433", "sales.dbo.orders")
    }


def test_oracle_names_the_service_pdb_first():
    connector = cdc(
        ORACLE,
        **{
            "topic.prefix": "ora",
            "database.hostname": "ora",
            "database.dbname": "ORCLCDB",
            "database.pdb.name": "ORCLPDB1",
        },
    )
    assert first_hops(connector, "ora.INVENTORY.CUSTOMERS") == {
        "ora.INVENTORY.CUSTOMERS": ("oracle://ora:1521", "ORCLPDB1.INVENTORY.CUSTOMERS")
    }


def test_mongodb_takes_the_first_host_and_never_the_credentials():
    connector = cdc(
        MONGODB,
        **{
            "topic.prefix": "mg",
            "mongodb.connection.string": "mongodb://h1.internal:27018,h2.internal:27017",
        },
    )
    assert first_hops(connector, "mg.shop.orders") == {
        "mg.shop.orders": ("mongodb://h1.internal:27018", "shop.orders")
    }
    legacy = cdc(MONGODB, **{"mongodb.name": "mg", "mongodb.hosts": "rs0/h1.internal,h2.internal:27017"})
    assert first_hops(legacy, "mg.shop.orders") == {
        "mg.shop.orders": ("mongodb://h1.internal:27017", "shop.orders")
    }


def test_include_and_exclude_lists_are_case_insensitive_full_matches():
    connector = cdc(
        MYSQL,
        **{
            "topic.prefix": "inv",
            "database.hostname": "h",
            "database.include.list": "SHOP,crm",
            "table.exclude.list": r"shop\.audit.*, crm\.tmp_\d{1\,3}",
        },
    )
    hops = first_hops(
        connector,
        "inv.shop.orders",
        "inv.shop.audit_log",
        "inv.crm.tmp_12",
        "inv.crm.tmp_1234",
        "inv.shopping.orders",  # `SHOP` must match the whole database name
        "inv.erp.orders",
    )
    assert set(hops) == {"inv.shop.orders", "inv.crm.tmp_1234"}


def test_legacy_whitelist_names_are_read_too():
    connector = cdc(
        POSTGRES,
        **{
            "database.server.name": "pg",
            "database.hostname": "h",
            "database.dbname": "d",
            "table.whitelist": r"public\.orders",
        },
    )
    assert set(first_hops(connector, "pg.public.orders", "pg.public.other")) == {"pg.public.orders"}


def test_a_name_with_the_delimiter_in_it_is_split_by_the_filters_or_reported():
    base = {"topic.prefix": "inv", "database.hostname": "h"}
    # Given a topic whose parts can be read two ways: database `a` table `b.c`, or database `a.b` table `c`
    topic = "inv.a.b.c"
    # When the include list admits only one reading: that one is the edge
    only = cdc(MYSQL, **base, **{"database.include.list": "a"})
    assert first_hops(only, topic) == {topic: ("mysql://h:3306", "a.b.c")}
    # When both readings pass: ambiguous, reported, no edge
    both = cdc(MYSQL, **base)
    derived = derive([both], [TopicKey("cdc", topic)], [source()])
    assert derived.sources == ()
    (note,) = derived.notes
    assert note.kind == "ambiguous"
    assert "database 'a', table 'b.c'" in note.reason


def test_a_custom_topic_delimiter_and_own_bookkeeping_topics():
    connector = cdc(
        MYSQL,
        **{
            "topic.prefix": "inv",
            "topic.delimiter": "_",
            "database.hostname": "h",
            "schema.history.internal.kafka.topic": "inv_history_x",
        },
    )
    assert set(first_hops(connector, "inv_shop_orders", "inv.shop.orders", "inv_history_x")) == {
        "inv_shop_orders"
    }


def test_topic_renaming_makes_the_connector_undetermined():
    router = cdc(
        MYSQL,
        **{
            "topic.prefix": "inv",
            "database.hostname": "h",
            "transforms": "route",
            "transforms.route.type": "io.debezium.transforms.ByLogicalTableRouter",
        },
    )
    derived = derive([router], [TopicKey("cdc", "inv.shop.orders")], [source()])
    assert derived.sources == ()
    assert [(n.kind, n.key) for n in derived.notes] == [("undetermined", None)]
    strategy = cdc(
        MYSQL, **{"topic.prefix": "inv", "database.hostname": "h", "topic.naming.strategy": "com.acme.Naming"}
    )
    assert [n.kind for n in derive([strategy], [], [source()]).notes] == ["undetermined"]


@pytest.mark.parametrize(
    ("cls", "config", "why"),
    [
        (MYSQL, {"database.hostname": "h"}, "no topic prefix"),
        (MYSQL, {"topic.prefix": "p"}, "database.hostname"),
        (POSTGRES, {"topic.prefix": "p", "database.hostname": "h"}, "database.dbname"),
        (MYSQL, {"topic.prefix": "p", "database.hostname": "h", "database.port": "x1"}, "not a number"),
        (MONGODB, {"topic.prefix": "p"}, "names a host"),
        (
            MYSQL,
            {"topic.prefix": "p", "database.hostname": "h", "table.include.list": r"\p{IsLatin}+"},
            "table",
        ),
    ],
)
def test_what_cannot_be_read_is_reported_unreadable(cls, config, why):
    derived = derive([cdc(cls, **config)], [TopicKey("cdc", "p.a.b")], [source()])
    assert derived.sources == ()
    (note,) = derived.notes
    assert note.kind == "unreadable"
    assert why in note.reason


def test_ipv6_hosts_are_bracketed():
    connector = cdc(MYSQL, **{"topic.prefix": "p", "database.hostname": "fd00::1"})
    assert first_hops(connector, "p.db.t") == {"p.db.t": ("mysql://[fd00::1]:3306", "db.t")}


def test_weird_and_255_character_names():
    table = "T$#-_" + "x" * 236
    prefix = "srv-1_$#"
    topic = f"{prefix}.db-1.{table}"
    assert len(topic) == 255
    connector = cdc(MYSQL, **{"topic.prefix": prefix, "database.hostname": "h"})
    assert first_hops(connector, topic, f"__{topic}") == {topic: ("mysql://h:3306", f"db-1.{table}")}


def test_source_and_sink_together_give_both_hops_of_one_topic():
    debezium = cdc(MYSQL, **{"topic.prefix": "inv", "database.hostname": "h"})
    iceberg = cdc(
        "org.apache.iceberg.connect.IcebergSinkConnector",
        name="lake",
        **{
            "topics.regex": r"inv\..*",
            "iceberg.tables": "lake.orders",
            "iceberg.catalog.catalog-impl": "org.apache.iceberg.aws.glue.GlueCatalog",
        },
    )
    derived = derive([iceberg, debezium], [TopicKey("cdc", "inv.shop.orders")], [source()])
    assert [(e.dataset_name, e.key.topic) for e in derived.sources] == [("shop.orders", "inv.shop.orders")]
    assert [(e.key.topic, e.table.name) for e in derived.sinks] == [("inv.shop.orders", "lake/orders")]


def test_regex_lists_split_like_debeziums_regex_splitter():
    assert split_regex_list(r" a\.b , c{1\,2},d\\,e ,, ") == ["a\\.b", "c{1,2}", "d\\\\", "e"]


def test_schema_topic_naming_is_the_default_layout_only_where_schema_parts_are_schema_and_table():
    strategy = {"topic.naming.strategy": "io.debezium.schema.SchemaTopicNamingStrategy"}
    postgres = cdc(
        POSTGRES, **{"topic.prefix": "pg", "database.hostname": "h", "database.dbname": "d"}, **strategy
    )
    assert first_hops(postgres, "pg.public.orders") == {
        "pg.public.orders": ("postgres://h:5432", "d.public.orders")
    }
    mysql = cdc(MYSQL, **{"topic.prefix": "inv", "database.hostname": "h"}, **strategy)
    derived = derive([mysql], [TopicKey("cdc", "inv.shop.orders")], [source()])
    assert derived.sources == ()
    assert [n.kind for n in derived.notes] == ["undetermined"]


def test_an_unwrapping_transform_marks_the_edge_flattened():
    base = {"topic.prefix": "inv", "database.hostname": "h"}
    plain = derive([cdc(MYSQL, **base)], [TopicKey("cdc", "inv.shop.orders")], [source()])
    assert [e.flattened for e in plain.sources] == [False]
    unwrap = {
        "transforms": "unwrap",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    }
    flat = derive([cdc(MYSQL, **base, **unwrap)], [TopicKey("cdc", "inv.shop.orders")], [source()])
    assert [e.flattened for e in flat.sources] == [True]
