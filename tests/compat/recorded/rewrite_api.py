import numpy as np
import mindspore as ms
from mindspore import nn, ops
from mindspore.rewrite import SymbolTree, Node, NodeType, ScopedValue, ValueType

np.set_printoptions(precision=5, suppress=True)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()

    def construct(self, x):
        x = self.act(x)
        return x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3)
        self.dense.weight.set_data(ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)))
        self.dense.bias.set_data(ms.Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
        self.relu = nn.ReLU()
        self.block = Block()

    def construct(self, x):
        x = self.dense(x)
        y = self.relu(x)
        y = self.block(y)
        z = y * 2 + x
        return z


net = Net()
x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) - 3)
print(net(x))
stree = SymbolTree.create(net)
for node in stree.nodes():
    print(node.get_name(), node.get_node_type(), node.get_targets(), node.get_args(), node.get_kwargs())
dense = stree.get_node("dense")
print([u.get_name() for u in dense.get_users()], [i.get_name() for i in dense.get_inputs()])
print(dense.get_instance() is net.dense, stree.get_node("nope"), dense.get_instance_type().__name__)
print([n.get_name() for n in stree.get_inputs()], stree.unique_name("dense"), stree.unique_name("x"),
      stree.unique_name("fresh"))
print(stree.get_node("block").get_node_type(), [n.get_name() for n in stree.get_node("block").get_sub_tree().nodes()])

tanh = Node.create_call_cell(nn.Tanh(), targets=["x_t"], args=[ScopedValue.create_naming_value("x")], name="tanh")
print(stree.insert(stree.after(dense), tanh).get_name())
relu = stree.get_node("relu")
relu.set_arg(0, "x_t")
print([n.get_name() for n in stree.nodes()], [u.get_name() for u in tanh.get_users()], relu.get_args())
net2 = stree.get_network()
print(type(net2).__name__, net2(x))
print(net(x))

sig = Node.create_call_cell(nn.Sigmoid(), targets=["y"], args=[ScopedValue.create_naming_value("x_t")], name="sig")
replaced = stree.replace(relu, [sig])
print(replaced.get_name(), [n.get_name() for n in stree.nodes()])
print(stree.get_network()(x))
sig.set_arg_by_node(0, dense)
print(sig.get_args())
print(stree.erase(tanh).get_name(), [n.get_name() for n in stree.nodes()])
print(stree.get_network()(x))

sub = stree.get_node("block").get_sub_tree()
neg = Node.create_call_cell(nn.Softsign(), targets=["x"], args=[ScopedValue.create_naming_value("x")], name="soft")
sub.insert(sub.after(sub.get_node("act")), neg)
print([n.get_name() for n in sub.nodes()])
print(stree.get_network()(x))

print(ScopedValue.create_naming_value("a", "self"), ScopedValue.create_variable_value(3),
      ScopedValue.create_variable_value(3).type, ScopedValue.create_naming_value("a").type)
print(ScopedValue.create_name_values(["a", "b"], ["self", ""]))
v = ScopedValue.create_naming_value("a", "self")
print(v.scope, v.value, repr(v), ScopedValue.create_variable_value((1, 2)).type,
      ScopedValue.create_variable_value([1]).type)
print(list(NodeType.__members__), list(ValueType.__members__))
try:
    SymbolTree.create(3)
except TypeError as exc:
    print("TypeError")
try:
    Node.create_call_cell(3, ["a"])
except TypeError as exc:
    print("TypeError")
