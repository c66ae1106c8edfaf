"""Converters from common dataset layouts to MindRecord: CIFAR-10/100 (python pickles), MNIST (IDX .gz files), an
ImageNet-style image folder with a label map file, and CSV. Pixels are stored as JPEG bytes (OpenCV encoder, in
RGB order once decoded); image files are stored as read from disk.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "t.csv"), "w") as f:
...     _ = f.write("name,age,score\\nann,31,2.5\\nbob,42,3\\n")
>>> CsvToMR(os.path.join(folder, "t.csv"), os.path.join(folder, "t.mindrecord")).transform()
0
>>> from openspore.mindrecord import FileReader
>>> [(r["name"], r["age"], r["score"]) for r in FileReader(os.path.join(folder, "t.mindrecord")).get_next()]
[('ann', 31, 2.5), ('bob', 42, 3.0)]
"""
import csv
import gzip
import os
import pickle

import numpy as np

from .errors import ParamValueError
from .writer import FileWriter

SUCCESS = 0


def _check_source_dir(source, where):
    if not isinstance(source, str) or not os.path.isdir(source):
        raise ValueError(f"For '{where}', 'source' must be an existing folder, but got {source!r}.")
    return source


def _check_destination(destination, where):
    if not isinstance(destination, str) or not destination or destination.endswith("/"):
        raise ValueError(f"For '{where}', 'destination' must be a file path, but got {destination!r}.")
    return destination


def _check_partitions(partition_number, where):
    if isinstance(partition_number, bool) or not isinstance(partition_number, int) or not 1 <= partition_number <= 1000:
        raise ValueError(f"For '{where}', 'partition_number' must be an int in [1, 1000], but got "
                         f"{partition_number!r}.")
    return partition_number


def _jpeg(rgb):
    import cv2
    ok, data = cv2.imencode(".jpg", np.ascontiguousarray(rgb[..., ::-1]) if rgb.ndim == 3 else rgb)
    if not ok:
        raise RuntimeError(f"JPEG encoding failed for an image of shape {rgb.shape}.")
    return data.tobytes()


def _write(path, schema, desc, rows, index_fields, shard_num=1, header_size=None, page_size=None):
    writer = FileWriter(path, shard_num)
    writer.add_schema(schema, desc)
    if index_fields:
        writer.add_index(list(index_fields))
    if header_size:
        writer.set_header_size(header_size)
    if page_size:
        writer.set_page_size(page_size)
    chunk = []
    for row in rows:  # bounded memory: rows go to the writer in chunks
        chunk.append(row)
        if len(chunk) == 1000:
            writer.write_raw_data(chunk)
            chunk = []
    if chunk:
        writer.write_raw_data(chunk)
    writer.commit()


def _unpickle(path, where):
    if not os.path.isfile(path):
        raise RuntimeError(f"For '{where}', the CIFAR python batch file {path} was not found.")
    with open(path, "rb") as f:
        return pickle.load(f, encoding="bytes")


def _cifar_images(batch):
    return np.asarray(batch[b"data"], dtype=np.uint8).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)


class Cifar10ToMR:
    """`Cifar10ToMR(source, destination)`: the CIFAR-10 python batches in `source` → `destination` (train) and
    `destination + "_test"`; schema id int64, label int64, data bytes (JPEG)."""

    _where = "Cifar10ToMR"

    def __init__(self, source, destination):
        self.source = _check_source_dir(source, self._where)
        self.destination = _check_destination(destination, self._where)

    def _splits(self):
        train = [_unpickle(os.path.join(self.source, f"data_batch_{k}"), self._where) for k in range(1, 6)]
        test = [_unpickle(os.path.join(self.source, "test_batch"), self._where)]
        return (("img_train", self.destination, train), ("img_test", self.destination + "_test", test))

    def _schema_and_rows(self, batches):
        def rows():
            i = 0
            for batch in batches:
                for image, label in zip(_cifar_images(batch), batch[b"labels"]):
                    yield {"id": i, "label": int(label), "data": _jpeg(image)}
                    i += 1
        return {"id": {"type": "int64"}, "label": {"type": "int64"}, "data": {"type": "bytes"}}, rows()

    def run(self, fields=None):
        for desc, path, batches in self._splits():
            schema, rows = self._schema_and_rows(batches)
            _write(path, schema, desc, rows, fields)
        return SUCCESS

    def transform(self, fields=None):
        """`transform(fields=None)`: convert; `fields` are the index fields (default: every scalar field)."""
        return self.run(fields)


class Cifar100ToMR(Cifar10ToMR):
    """`Cifar100ToMR(source, destination)`: the CIFAR-100 python files `train` and `test`; schema id, fine_label,
    coarse_label (int64) and data bytes (JPEG)."""

    _where = "Cifar100ToMR"

    def _splits(self):
        return (("img_train", self.destination, [_unpickle(os.path.join(self.source, "train"), self._where)]),
                ("img_test", self.destination + "_test", [_unpickle(os.path.join(self.source, "test"), self._where)]))

    def _schema_and_rows(self, batches):
        def rows():
            i = 0
            for batch in batches:
                for image, fine, coarse in zip(_cifar_images(batch), batch[b"fine_labels"], batch[b"coarse_labels"]):
                    yield {"id": i, "fine_label": int(fine), "coarse_label": int(coarse), "data": _jpeg(image)}
                    i += 1
        return ({"id": {"type": "int64"}, "fine_label": {"type": "int64"}, "coarse_label": {"type": "int64"},
                 "data": {"type": "bytes"}}, rows())


class MnistToMR:
    """`MnistToMR(source, destination, partition_number=1)`: the four MNIST `*-ubyte.gz` files →
    `<destination>_train.mindrecord` and `<destination>_test.mindrecord`; schema label int64, data bytes (JPEG)."""

    def __init__(self, source, destination, partition_number=1):
        self.source = _check_source_dir(source, "MnistToMR")
        self.destination = _check_destination(destination, "MnistToMR")
        self.partition_number = _check_partitions(partition_number, "MnistToMR")

    def _idx(self, name, magic, ndim):
        path = os.path.join(self.source, name)
        if not os.path.isfile(path):
            raise RuntimeError(f"For 'MnistToMR', {path} was not found.")
        with gzip.open(path, "rb") as f:
            data = f.read()
        if int.from_bytes(data[:4], "big") != magic:
            raise RuntimeError(f"For 'MnistToMR', {path} is not an IDX file with magic number {magic}.")
        dims = tuple(int.from_bytes(data[4 + 4 * k:8 + 4 * k], "big") for k in range(ndim))
        return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)

    def run(self):
        for split, prefix in (("train", "train"), ("test", "t10k")):
            images = self._idx(f"{prefix}-images-idx3-ubyte.gz", 2051, 3)
            labels = self._idx(f"{prefix}-labels-idx1-ubyte.gz", 2049, 1)
            rows = ({"label": int(lbl), "data": _jpeg(img)} for img, lbl in zip(images, labels))
            _write(f"{self.destination}_{split}.mindrecord", {"label": {"type": "int64"}, "data": {"type": "bytes"}},
                   f"mnist_{split}", rows, ["label"], self.partition_number, 1 << 24, 1 << 26)
        return SUCCESS

    def transform(self):
        return self.run()


class ImageNetToMR:
    """`ImageNetToMR(map_file, image_dir, destination, partition_number=1)`: one sub-folder of `image_dir` per class,
    `map_file` lines `<folder> <label>`; schema label int32, image bytes (the file as stored), file_name string."""

    def __init__(self, map_file, image_dir, destination, partition_number=1):
        if not isinstance(map_file, str) or not os.path.isfile(map_file):
            raise ValueError(f"For 'ImageNetToMR', 'map_file' must be an existing file, but got {map_file!r}.")
        if not isinstance(image_dir, str) or not os.path.isdir(image_dir):
            raise ValueError(f"For 'ImageNetToMR', 'image_dir' must be an existing folder, but got {image_dir!r}.")
        self.map_file, self.image_dir = map_file, image_dir
        self.destination = _check_destination(destination, "ImageNetToMR")
        self.partition_number = _check_partitions(partition_number, "ImageNetToMR")

    def _labels(self):
        labels = {}
        with open(self.map_file, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) != 2 or not parts[1].lstrip("-").isdigit():
                    raise ValueError(f"For 'ImageNetToMR', line {lineno} of {self.map_file} must be "
                                     f"'<folder> <label>', but got {line.strip()!r}.")
                labels[parts[0]] = int(parts[1])
        return labels

    def run(self):
        def rows():
            for folder, label in sorted(self._labels().items(), key=lambda kv: kv[1]):
                path = os.path.join(self.image_dir, folder)
                if not os.path.isdir(path):
                    raise RuntimeError(f"For 'ImageNetToMR', the class folder {path} named in {self.map_file} does "
                                       f"not exist.")
                for name in sorted(os.listdir(path)):
                    full = os.path.join(path, name)
                    if os.path.isfile(full):
                        with open(full, "rb") as f:
                            yield {"label": label, "image": f.read(), "file_name": name}
        _write(self.destination, {"label": {"type": "int32"}, "image": {"type": "bytes"},
                                  "file_name": {"type": "string"}}, "ImageNet", rows(), ["label", "file_name"],
               self.partition_number)
        return SUCCESS

    def transform(self):
        return self.run()


def _csv_type(values):
    """The MindRecord type of a CSV column as pandas would infer it: int64, float64, bool → int32, else string."""
    def all_parse(cast):
        try:
            for v in values:
                cast(v)
            return True
        except ValueError:
            return False
    if values and all(v in ("True", "False") for v in values):
        return "int32", lambda v: int(v == "True")
    if values and all_parse(int):
        return "int64", int
    if values and all_parse(float):
        return "float64", float
    return "string", str


class CsvToMR:
    """`CsvToMR(source, destination, columns_list=None, partition_number=1)`: a CSV file with a header row → one
    MindRecord field per column (int64, float64, int32 for booleans, else string), every field indexed."""

    def __init__(self, source, destination, columns_list=None, partition_number=1):
        if not isinstance(source, str) or not os.path.isfile(source):
            raise ValueError(f"For 'CsvToMR', 'source' must be an existing CSV file, but got {source!r}.")
        if columns_list is not None and (not isinstance(columns_list, list)
                                         or not all(isinstance(c, str) for c in columns_list)):
            raise ValueError(f"For 'CsvToMR', 'columns_list' must be a list of str, but got {columns_list!r}.")
        self.source, self.columns_list = source, columns_list
        self.destination = _check_destination(destination, "CsvToMR")
        self.partition_number = _check_partitions(partition_number, "CsvToMR")

    def run(self):
        with open(self.source, newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
        if not table:
            raise ValueError(f"For 'CsvToMR', {self.source} is empty; it needs a header row.")
        header, body = table[0], table[1:]
        for lineno, row in enumerate(body, 2):
            if len(row) != len(header):
                raise ValueError(f"For 'CsvToMR', line {lineno} of {self.source} has {len(row)} values but the header "
                                 f"has {len(header)} columns.")
        columns = self.columns_list or header
        missing = [c for c in columns if c not in header]
        if missing:
            raise ParamValueError(f"For 'CsvToMR', columns {missing} are not in the CSV header {header}.")
        kinds = {c: _csv_type([row[header.index(c)] for row in body]) for c in columns}
        schema = {c: {"type": kinds[c][0]} for c in columns}
        rows = ({c: kinds[c][1](row[header.index(c)]) for c in columns} for row in body)
        _write(self.destination, schema, "CsvToMR", rows, columns, self.partition_number)
        return SUCCESS

    def transform(self):
        return self.run()
