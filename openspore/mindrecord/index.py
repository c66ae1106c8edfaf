"""The `.db` index beside each shard file: an SQLite database with the shard's name and one row per record giving
where its raw and blob parts lie, plus the values of the index fields.

>>> ddl(["label"], {"label": {"type": "int32"}}).endswith("INC_0 INT, label_0 INTEGER, PRIMARY KEY(ROW_ID,INC_0))")
True
"""
import os
import sqlite3

from .errors import MRMOpenError
from .format import sql_type

POSITION_COLUMNS = ("ROW_ID", "PAGE_ID_RAW", "PAGE_OFFSET_RAW", "PAGE_OFFSET_RAW_END", "ROW_GROUP_ID",
                    "PAGE_ID_BLOB", "PAGE_OFFSET_BLOB", "PAGE_OFFSET_BLOB_END")


def column_name(field):
    return field.replace(".", "_").replace("-", "_") + "_0"


def ddl(index_fields, schema):
    """CREATE TABLE INDEXES as MindSpore spells it (its column padding included)."""
    cols = ", ".join(f"{c:<20} INT  NOT NULL" for c in POSITION_COLUMNS)
    extra = "".join(f",INC_{k} INT, {column_name(f)} {sql_type(schema[f]['type'])}"
                    for k, f in enumerate(index_fields))
    keys = ",".join(["ROW_ID"] + [f"INC_{k}" for k in range(len(index_fields))])
    return f"CREATE TABLE INDEXES(  {cols}{extra}, PRIMARY KEY({keys}))"


def write_index(db_path, shard_name, index_fields, schema, rows):
    """Write the index of one shard to `db_path` (through a temporary file renamed into place).

    rows: tuples of the 8 position values followed by one value per index field."""
    tmp = db_path + ".tmp"
    if os.path.lexists(tmp):
        os.remove(tmp)
    try:
        conn = sqlite3.connect(tmp)
        try:
            conn.execute(ddl(index_fields, schema))
            conn.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
            conn.execute("INSERT INTO SHARD_NAME (NAME) VALUES (?)", (shard_name,))
            names = list(POSITION_COLUMNS)
            for k, f in enumerate(index_fields):
                names += [f"INC_{k}", column_name(f)]
            marks = ",".join("?" * len(names))
            n_pos = len(POSITION_COLUMNS)
            conn.executemany(f"INSERT INTO INDEXES ({','.join(names)}) VALUES ({marks})",
                             (tuple(r[:n_pos]) + tuple(v for val in r[n_pos:] for v in (0, val)) for r in rows))
            conn.commit()
        finally:
            conn.close()
        os.chmod(tmp, 0o600)
        os.replace(tmp, db_path)
    except BaseException:
        if os.path.lexists(tmp):
            os.remove(tmp)
        raise


def read_index(db_path, shard_path, index_fields):
    """(position rows ordered by ROW_ID, {index field: list of values}) of one shard's `.db`."""
    if not os.path.isfile(db_path):
        raise MRMOpenError(f"The input: {db_path} is not exists. A MindRecord file needs its .db index file beside "
                           f"it.")
    try:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise MRMOpenError(f"Failed to open mindrecord meta file {db_path}: {exc}") from exc
    try:
        try:
            name = conn.execute("SELECT NAME FROM SHARD_NAME").fetchone()
            cols = list(POSITION_COLUMNS) + [column_name(f) for f in index_fields]
            rows = conn.execute(f"SELECT {','.join(cols)} FROM INDEXES ORDER BY ROW_ID").fetchall()
        except sqlite3.Error as exc:
            raise MRMOpenError(f"Invalid mindrecord meta file {db_path}: {exc}") from exc
    finally:
        conn.close()
    base = os.path.basename(shard_path)
    if name is None or name[0] != base:
        raise MRMOpenError(f"Invalid file, mindrecord meta file {db_path} can not match the mindrecord file "
                           f"{base} (it names {name[0] if name else None!r}); do not rename the mindrecord file and "
                           f"meta file.")
    n_pos = len(POSITION_COLUMNS)
    positions = [r[:n_pos] for r in rows]
    values = {f: [r[n_pos + k] for r in rows] for k, f in enumerate(index_fields)}
    return positions, values
