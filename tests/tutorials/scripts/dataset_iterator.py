# ruff: noqa: E402, F811  (a tutorial page: imports where the page has them, blocks that redefine names)
# MindSpore tutorial "Data Iteration" (tutorials/advanced/dataset/iterator, the 1.x/2.0 page), unchanged (nothing is
# downloaded): tuple and dict iterators, iterating a dataset directly and with enumerate, num_epochs, output_numpy,
# and a custom training loop over a GeneratorDataset with amp.build_train_network and Momentum. Its last block is
# left out: it decorates construct with `ms_function`, which MindSpore 2.x removed (2.10 has no `ms_function`).
# (The Tensor class prints as openspore's, <class 'openspore.core.tensor.Tensor'>, where the page shows
# <class 'mindspore.common.tensor.Tensor'>.)
# expect: iterate dataset using enumerate
# expect: index: 1, item:
# expect: tensor.Tensor'>
# expect: dtype:  <class 'numpy.ndarray'>
# expect: epoch:35, loss:
# expect: --------- Eval ---------
# expect: label: 204.000
import mindspore.dataset as ds

# Dataset
np_data = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]

# Load data.
dataset = ds.NumpySlicesDataset(np_data, column_names=["data"], shuffle=False)

# Create a tuple iterator.
print("\n create tuple iterator")
for item in dataset.create_tuple_iterator():
    print("item:\n", item[0])

# Create a dict iterator.
print("\n create dict iterator")
for item in dataset.create_dict_iterator():
    print("item:\n", item["data"])

# Directly traverse dataset objects (equivalent to creating a tuple iterator).
print("\n iterate dataset object directly")
for item in dataset:
    print("item:\n", item[0])

# Use enumerate to traverse (equivalent to creating a tuple iterator).
print("\n iterate dataset using enumerate")
for index, item in enumerate(dataset):
    print("index: {}, item:\n {}".format(index, item[0]))

epoch = 2  # Create a tuple iterator to generate data for two epochs.

iterator = dataset.create_tuple_iterator(num_epochs=epoch)

for i in range(epoch):
    print("epoch: ", i)
    for item in iterator:
        print("item:\n", item[0])

# The default output type is mindspore.Tensor.
for item in dataset.create_tuple_iterator():
    print("dtype: ", type(item[0]), "\nitem:\n", item[0])

# Set the output type to numpy.ndarray.
for item in dataset.create_tuple_iterator(output_numpy=True):
    print("dtype: ", type(item[0]), "\nitem:\n", item[0])

def func(x):
    """Define a linear function expression."""
    result = []
    for sample in x:
        total = 0
        for i, e in enumerate(sample):
            total += (i+1) * e
        result.append(total)
    return result

import numpy as np

class MyTrainData:
    """Customize a training dataset class."""
    def __init__(self):
        """Initialize operations."""
        self.__data = np.array([[[1, 1, 1, 1, 1, 1, 1, 1]],
                                [[1, 1, 1, 1, 1, 1, 1, 0]],
                                [[1, 1, 1, 1, 1, 1, 0, 0]],
                                [[1, 1, 1, 1, 1, 0, 0, 0]],
                                [[1, 1, 1, 1, 0, 0, 0, 0]],
                                [[1, 1, 1, 0, 0, 0, 0, 0]],
                                [[1, 1, 0, 0, 0, 0, 0, 0]],
                                [[1, 0, 0, 0, 0, 0, 0, 0]]]).astype(np.float32)
        self.__label = np.array([func(x) for x in self.__data]).astype(np.float32)

    def __getitem__(self, index):
        """Define a random access function."""
        return self.__data[index], self.__label[index]

    def __len__(self):
        """Define a function for obtaining the dataset size."""
        return len(self.__data)

class MyEvalData:
    """Customize a validation dataset class."""
    def __init__(self):
        """Initialize operations."""
        self.__data = np.array([[[1, 2, 3, 4, 5, 6, 7, 8]],
                                [[1, 1, 1, 1, 1, 1, 1, 1]],
                                [[8, 7, 6, 5, 4, 3, 2, 1]]]).astype(np.float32)
        self.__label = np.array([func(x) for x in self.__data]).astype(np.float32)

    def __getitem__(self, index):
        """Define a random access function."""
        return self.__data[index], self.__label[index]

    def __len__(self):
        """Define a function for obtaining the dataset size."""
        return len(self.__data)

import mindspore.nn as nn
from mindspore.common.initializer import Normal

class MyNet(nn.Cell):
    """Customize a network."""
    def __init__(self):
        super(MyNet, self).__init__()
        self.fc = nn.Dense(8, 1, weight_init=Normal(0.02))

    def construct(self, x):
        x = self.fc(x)
        return x

import mindspore.dataset as ds
import mindspore as ms
from mindspore import amp

def train(dataset, net, optimizer, loss, epoch):
    """Customize a training process."""
    print("--------- Train ---------")

    train_network = amp.build_train_network(net, optimizer, loss)
    for i in range(epoch):
        # Use the data iterator to obtain data.
        for item in dataset.create_dict_iterator():
            data = item["data"]
            label = item["label"]
            loss = train_network(data, label)

        # Print every five epochs.
        if i % 5 == 0:
            print("epoch:{}, loss: {}".format(i, loss))

dataset = ds.GeneratorDataset(MyTrainData(), ["data", "label"], shuffle=True)  # Define the dataset.

epoch = 40                                                  # Define the epoch.
net = MyNet()                                               # Define the network.
loss = nn.MSELoss(reduction="mean")                         # Define the loss function.
optimizer = nn.Momentum(net.trainable_params(), 0.01, 0.9)  # Define the optimizer.

# Start training.
train(dataset, net, optimizer, loss, epoch)

def eval(net, data):
    """Customize the inference process."""
    print("--------- Eval ---------")

    for item in data:
        predict = net(ms.Tensor(item[0]))[0]
        print("predict: {:7.3f}, label: {:7.3f}".format(predict.asnumpy()[0], item[1][0]))

# Start inference.
eval(net, MyEvalData())
