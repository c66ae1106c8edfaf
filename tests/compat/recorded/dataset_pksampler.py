import os
import tempfile
import numpy as np
import mindspore.dataset as ds
from PIL import Image
root = tempfile.mkdtemp()
counts = {"a": 3, "b": 1, "c": 2}
for cls, k in counts.items():
    os.makedirs(os.path.join(root, cls))
    for i in range(k):
        Image.fromarray(np.full((2, 2, 3), i * 40 + len(cls), np.uint8)).save(os.path.join(root, cls, f"{i}.png"))
for kw in [dict(num_val=2), dict(num_val=1), dict(num_val=3, num_samples=5)]:
    d = ds.ImageFolderDataset(root, sampler=ds.PKSampler(**kw))
    print(kw, d.get_dataset_size(), [int(r["label"]) for r in d.create_dict_iterator(output_numpy=True)])
d = ds.ImageFolderDataset(root, sampler=ds.PKSampler(2, shuffle=True))
print(sorted(int(r["label"]) for r in d.create_dict_iterator(output_numpy=True)))
