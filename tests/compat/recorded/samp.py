import numpy as np
import mindspore.dataset as ds
class ReverseSampler:
    def __init__(self, n):
        self.n = n
    def __getitem__(self, i):
        return self.n - 1 - i
    def __len__(self):
        return self.n
data = ds.NumpySlicesDataset({"x": np.arange(5)}, sampler=ReverseSampler(5))
print([int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)])
class IterSampler:
    def __iter__(self):
        return iter([1, 3])
data = ds.GeneratorDataset([(np.array(i),) for i in range(4)], ["x"], sampler=IterSampler())
print([int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)])
