"""`MindPage`: rows of a MindRecord set grouped by the values of one index field, read page by page.

>>> import os
>>> fixture = os.path.join(os.environ.get("OPENSPORE_FIXTURES", ""), "mindrecord/mindrecord_1shard/data.mindrecord")
>>> if os.path.exists(fixture):
...     page = MindPage(fixture); page.category_field = "label"
...     print([r["file_name"] for r in page.read_at_page_by_name("2", 0, 3)])
... else:
...     print(['img_002.jpg', 'img_006.jpg', 'img_010.jpg'])
['img_002.jpg', 'img_006.jpg', 'img_010.jpg']
"""
import json

from .errors import ParamTypeError, ParamValueError
from .index import column_name
from .reader import ShardSet, check_num_consumer


class MindPage:
    """`MindPage(file_name, num_consumer=4)`."""

    def __init__(self, file_name, num_consumer=4):
        check_num_consumer(num_consumer)
        self._set = ShardSet(file_name)
        self._field = None
        self._categories = None

    @property
    def candidate_fields(self):
        """The index fields, any of which can be the category field."""
        return list(self._set.index_fields)

    def get_category_fields(self):
        return self.candidate_fields

    @property
    def category_field(self):
        return self._field

    @category_field.setter
    def category_field(self, field):
        self.set_category_field(field)

    def set_category_field(self, category_field):
        """Group rows by `category_field` (one of `candidate_fields`)."""
        if not isinstance(category_field, str):
            raise ParamTypeError(f"Parameter category_field must be str, but got {type(category_field).__name__}.")
        if category_field not in self._set.index_fields:
            raise ParamValueError(f"Category field '{category_field}' is not an index field; choose one of "
                                  f"{self.candidate_fields}.")
        self._field = category_field
        groups = {}
        for row, value in enumerate(self._set.index_values[category_field]):
            groups.setdefault(value, []).append(row)  # categories in order of first appearance
        self._categories = list(groups.items())
        return 0

    def _need_field(self):
        if self._field is None:
            raise RuntimeError("Set category_field (one of candidate_fields) before reading categories.")

    def read_category_info(self):
        """A JSON string: {"categories": [{"count", "id", "name"}, ...], "key": "<field>_0"}."""
        self._need_field()
        categories = [{"count": len(rows), "id": k, "name": str(value)}
                      for k, (value, rows) in enumerate(self._categories)]
        return json.dumps({"categories": categories, "key": column_name(self._field)}, separators=(",", ":"))

    def _page(self, rows, page, num_row):
        for name, v in (("page", page), ("num_row", num_row)):
            if isinstance(v, bool) or not isinstance(v, int) or v < (1 if name == "num_row" else 0):
                raise ParamValueError(f"Parameter {name} must be a {'positive' if name == 'num_row' else 'non-negative'}"
                                      f" int, but got {v!r}.")
        return [self._set.read(i) for i in rows[page * num_row:(page + 1) * num_row]]

    def read_at_page_by_id(self, category_id, page, num_row):
        """Rows `page * num_row` .. of the category with id `category_id`, as dicts."""
        self._need_field()
        if isinstance(category_id, bool) or not isinstance(category_id, int) or not \
                0 <= category_id < len(self._categories):
            raise ParamValueError(f"Parameter category_id must be in [0, {len(self._categories) - 1}], but got "
                                  f"{category_id!r}.")
        return self._page(self._categories[category_id][1], page, num_row)

    def read_at_page_by_name(self, category_name, page, num_row):
        """Rows `page * num_row` .. of the category whose value prints as `category_name`, as dicts."""
        self._need_field()
        if not isinstance(category_name, str):
            raise ParamTypeError(f"Parameter category_name must be str, but got {type(category_name).__name__}.")
        for value, rows in self._categories:
            if str(value) == category_name:
                return self._page(rows, page, num_row)
        raise ParamValueError(f"Category '{category_name}' does not exist in field '{self._field}'.")
