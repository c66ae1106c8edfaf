"""One shard file being written: rows go into the open blob page and raw page; full pages are written to the
shard's temporary file at their slots; `finish` writes the header and renames the file into place.

A row group is the rows of one blob page; its raw rows are consecutive in one raw page, whose `row_group_ids`
entry says where they start. When either page cannot take the next row, a new group begins (and, if the raw page
is the full one, a new raw page), so a group never straddles two raw pages.
"""
import os
import struct

from .format import header_bytes

_LEN = struct.Struct("<Q")


class _Page:
    def __init__(self, page_id, page_type, type_id, start_row):
        self.page_id, self.page_type, self.type_id, self.start_row = page_id, page_type, type_id, start_row
        self.data = bytearray()
        self.groups = []  # raw pages: [{"id": group, "offset": byte offset}]
        self.end_row = start_row

    def entry(self, shard_id):
        blob = self.page_type == "BLOB_DATA"
        return {"end_row_id": self.end_row if blob else 0, "page_id": self.page_id, "page_size": len(self.data),
                "page_type": self.page_type, "page_type_id": self.type_id,
                "row_group_ids": [{"id": 0, "offset": 0}] if blob else self.groups,
                "shard_id": shard_id, "start_row_id": self.start_row if blob else 0}


class ShardBuilder:
    """Writes shard `shard_id` of a set to `path + '.tmp'` until `finish()` renames it to `path`."""

    def __init__(self, path, shard_id, header_size, page_size):
        self.path, self.shard_id = path, shard_id
        self.header_size, self.page_size = header_size, page_size
        self.tmp = path + ".tmp"
        if os.path.lexists(self.tmp):
            os.remove(self.tmp)
        self.file = open(self.tmp, "wb")  # noqa: SIM115 - closed by finish/abort
        self.closed_pages = []  # header entries of pages already written
        self.blob = self.raw = None
        self.next_page_id = 0
        self.next_group = 0
        self.next_row = 0
        self.index_rows = []

    # --- reopening an existing shard (open_for_append) ---------------------------------------------------------
    def load(self, header, mapped, index_rows):
        """Copy an existing shard's pages into the temporary file and reopen its last blob and raw pages."""
        pages = sorted(header["page"], key=lambda p: p["page_id"])
        last_blob = max((p for p in pages if p["page_type"] == "BLOB_DATA"), key=lambda p: p["page_type_id"],
                        default=None)
        raws = [p for p in pages if p["page_type"] == "RAW_DATA"]
        last_raw = None
        if last_blob is not None:  # the raw page that holds the last group's raw rows
            last_raw = next((p for p in raws if any(g["id"] == last_blob["page_type_id"] for g in p["row_group_ids"])),
                            raws[-1] if raws else None)
        for p in pages:
            start = self.header_size + self.page_size * p["page_id"]
            data = mapped[start:start + p["page_size"]]
            if p is last_blob or p is last_raw:
                page = _Page(p["page_id"], p["page_type"], p["page_type_id"], p["start_row_id"])
                page.data = bytearray(data)
                page.end_row = p["end_row_id"]
                page.groups = [dict(g) for g in p["row_group_ids"]]
                if p is last_blob:
                    self.blob = page
                else:
                    self.raw = page
            else:
                self._write_at(p["page_id"], data)
                self.closed_pages.append(dict(p))
        self.next_page_id = max((p["page_id"] for p in pages), default=-1) + 1
        self.next_group = (last_blob["page_type_id"] + 1) if last_blob else 0
        self.next_row = max((p["end_row_id"] for p in pages if p["page_type"] == "BLOB_DATA"), default=0)
        self.index_rows = list(index_rows)

    # --- writing rows ----------------------------------------------------------------------------------------------
    def _write_at(self, page_id, data):
        self.file.seek(self.header_size + self.page_size * page_id)
        self.file.write(data)

    def _close(self, page):
        self._write_at(page.page_id, page.data)
        self.closed_pages.append(page.entry(self.shard_id))

    def _new_group(self, raw_len):
        if self.blob is not None:
            self._close(self.blob)
        self.blob = _Page(self.next_page_id, "BLOB_DATA", self.next_group, self.next_row)
        self.next_page_id += 1
        if self.raw is None or len(self.raw.data) + raw_len > self.page_size:
            # later raw pages are numbered after the previous raw page's page_id, as MindSpore numbers them
            type_id = 0 if self.raw is None else self.raw.page_id + 1
            if self.raw is not None:
                self._close(self.raw)
            self.raw = _Page(self.next_page_id, "RAW_DATA", type_id, 0)
            self.next_page_id += 1
        self.raw.groups.append({"id": self.next_group, "offset": len(self.raw.data)})
        self.next_group += 1

    def add(self, raw, blob, index_values):
        """Append one row: `raw` (MessagePack) and `blob` payloads without their length prefixes."""
        raw_len, blob_len = 8 + len(raw), 8 + len(blob)
        for what, size in (("raw", raw_len), ("blob", blob_len)):
            if size > self.page_size:
                raise RuntimeError(f"Page size {self.page_size} is too small to save a row: its {what} part takes "
                                   f"{size} bytes; call set_page_size with a larger value.")
        if (self.blob is None or len(self.blob.data) + blob_len > self.page_size
                or len(self.raw.data) + raw_len > self.page_size):
            self._new_group(raw_len)
        raw_off, blob_off = len(self.raw.data), len(self.blob.data)
        self.raw.data += _LEN.pack(len(raw)) + raw
        self.blob.data += _LEN.pack(len(blob)) + blob
        self.blob.end_row = self.next_row + 1
        self.index_rows.append((self.next_row, self.raw.page_id, raw_off, raw_off + raw_len, self.blob.type_id,
                                self.blob.page_id, blob_off, blob_off + blob_len) + tuple(index_values))
        self.next_row += 1

    # --- finishing -------------------------------------------------------------------------------------------------
    def finish(self, schema, desc, index_fields, compression_size, shard_addresses):
        """Write the open pages and the header; the file stays at its temporary name until `publish`."""
        for page in (self.blob, self.raw):
            if page is not None:
                self._close(page)
        self.blob = self.raw = None
        pages = sorted(self.closed_pages, key=lambda p: p["page_id"])
        head = header_bytes(self.header_size, self.page_size, index_fields, pages, compression_size, schema, desc,
                            shard_addresses, self.shard_id)
        if 8 + len(head) > self.header_size:
            raise RuntimeError(f"The MindRecord header of {self.path} needs {8 + len(head)} bytes but the header size "
                               f"is {self.header_size}; call set_header_size with a larger value.")
        self.file.seek(0)
        self.file.write(_LEN.pack(len(head)) + head)
        self.file.close()

    def publish(self):
        os.chmod(self.tmp, 0o600)
        os.replace(self.tmp, self.path)

    def abort(self):
        if not self.file.closed:
            self.file.close()
        if os.path.lexists(self.tmp):
            os.remove(self.tmp)
