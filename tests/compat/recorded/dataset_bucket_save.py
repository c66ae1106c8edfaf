import os
import tempfile
import numpy as np
import mindspore.dataset as ds
rows = [np.arange(n, dtype=np.int32) for n in (1, 5, 2, 6, 3, 2)]
def gen():
    for i, r in enumerate(rows):
        yield r, np.array(i, np.int32)
for kw in [dict(pad_info={}), dict(pad_info={"x": (None, -1)}), dict(pad_info={}, pad_to_bucket_boundary=True),
           dict(pad_info={}, drop_remainder=True), dict(pad_info=None)]:
    try:
        d = ds.GeneratorDataset(gen, ["x", "i"], shuffle=False).bucket_batch_by_length(["x"], [3, 7], [2, 2, 1], **kw)
        print(kw, [(b[0].tolist(), b[1].tolist()) for b in d.create_tuple_iterator(output_numpy=True)])
    except Exception as e:
        print(kw, "ERR", type(e).__name__, str(e).splitlines()[0][:100])
d = ds.GeneratorDataset(gen, ["x", "i"], shuffle=False).bucket_batch_by_length(["x", "i"], [3], [2, 3], element_length_function=lambda x, i: int(x.shape[0]), pad_info={})
print([(b[0].tolist(), b[1].tolist()) for b in d.create_tuple_iterator(output_numpy=True)])
path = os.path.join(tempfile.mkdtemp(), "rows.mindrecord")
src = ds.NumpySlicesDataset({"a": np.arange(5, dtype=np.int32), "b": np.arange(15, dtype=np.float32).reshape(5, 3),
                             "c": np.array(["p", "q", "r", "s", "t"])}, shuffle=False)
src.save(path)
back = ds.MindDataset(path, shuffle=False)
print(sorted(back.get_col_names()), back.get_dataset_size())
for row in back.create_dict_iterator(output_numpy=True):
    print(row["a"], row["a"].dtype, row["b"], row["b"].dtype, row["c"])
