# The dataset sources on tiny datasets written here in each official layout (TFRecord framed and encoded by hand),
# read by mindspore.dataset: columns, dtypes, shapes and values, in order. Recorded under MindSpore 2.10.
import json
import os
import struct
import wave

import numpy as np
from PIL import Image

import mindspore.dataset as ds


def png(path, value, size=(6, 4)):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    Image.fromarray(np.full((size[1], size[0], 3), value, np.uint8)).save(path, format="PNG")


def show(name, data, limit=4):
    try:
        print(name, "columns", data.get_col_names(), "size", data.get_dataset_size())
        for k, row in enumerate(data.create_dict_iterator(output_numpy=True, num_epochs=1)):
            if k >= limit:
                break
            for col, v in row.items():
                v = np.asarray(v)
                if v.dtype.kind in "SU":
                    vals = [x.decode() if isinstance(x, bytes) else str(x) for x in v.reshape(-1).tolist()]
                    print(" ", col, v.dtype.kind, v.shape, vals)
                elif v.size > 12:
                    print(" ", col, v.dtype, v.shape, "sum", int(v.astype(np.int64).sum()) if v.dtype.kind in "iub" else float(v.sum()))
                else:
                    print(" ", col, v.dtype, v.shape, v.reshape(-1).tolist())
    except Exception as exc:  # noqa: BLE001
        print(name, "ERROR", type(exc).__name__)


# --- TFRecord: hand-encoded Example protos and CRC-32C framing -----------------------------------------
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, wire, payload):
    return varint((num << 3) | wire) + (varint(len(payload)) + payload if wire == 2 else payload)


def feature(kind, values):
    if kind == "bytes":
        body = b"".join(field(1, 2, v) for v in values)
        return field(1, 2, body)
    if kind == "float":
        return field(2, 2, field(1, 2, struct.pack(f"<{len(values)}f", *values)))
    return field(3, 2, field(1, 2, b"".join(varint(v) for v in values)))


def example(feats):
    body = b""
    for name, (kind, values) in feats.items():
        entry = field(1, 2, name.encode()) + field(2, 2, feature(kind, values))
        body += field(1, 2, entry)
    return field(1, 2, body)


def write_tfrecord(path, examples):
    with open(path, "wb") as f:
        for e in examples:
            length = struct.pack("<Q", len(e))
            f.write(length + struct.pack("<I", masked(length)) + e + struct.pack("<I", masked(e)))


write_tfrecord("a.tfrecord", [example({"id": ("int", [k, k + 1]), "vec": ("float", [k * 0.5, 1.0, 2.0]),
                                       "img": ("bytes", [bytes([k, k + 1, k + 2, k + 3])])}) for k in range(3)])
show("tfrecord-noschema", ds.TFRecordDataset("a.tfrecord", shuffle=False, columns_list=["id", "vec"]))
schema = ds.Schema()
schema.add_column("img", de_type="uint8", shape=[2, 2])
schema.add_column("id", de_type="int64", shape=[2])
show("tfrecord-schema", ds.TFRecordDataset("a.tfrecord", schema=schema, shuffle=False))
show("tfrecord-shard", ds.TFRecordDataset("a.tfrecord", schema=schema, shuffle=False, num_shards=2, shard_id=1,
                                          shard_equal_rows=True))

# --- VOC --------------------------------------------------------------------------------------------------
objs = {"a": [("dog", (1, 2, 5, 7), 0, 1)], "b": [("cat", (1, 1, 3, 4), 1, 0), ("dog", (1, 1, 4, 4), 0, 0)]}
for image_id, items in objs.items():
    xml = "<annotation><filename>%s.jpg</filename>" % image_id
    for name, (x0, y0, x1, y1), diff, trunc in items:
        xml += (f"<object><name>{name}</name><difficult>{diff}</difficult><truncated>{trunc}</truncated>"
                f"<bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>")
    os.makedirs("voc/Annotations", exist_ok=True)
    with open(f"voc/Annotations/{image_id}.xml", "w") as f:
        f.write(xml + "</annotation>")
    png(f"voc/JPEGImages/{image_id}.jpg", 10 if image_id == "a" else 200)
    png(f"voc/SegmentationClass/{image_id}.png", 1)
os.makedirs("voc_bad/Annotations", exist_ok=True)
for task in ("Main", "Segmentation"):
    os.makedirs(f"voc/ImageSets/{task}", exist_ok=True)
    with open(f"voc/ImageSets/{task}/train.txt", "w") as f:
        f.write("a\nb\n")
show("voc-det", ds.VOCDataset("voc", task="Detection", usage="train", shuffle=False, decode=True))
v = ds.VOCDataset("voc", task="Detection", usage="train", shuffle=False)
try:
    print("voc-classes", v.get_class_indexing())
except Exception as exc:  # noqa: BLE001
    print("voc-classes ERROR", type(exc).__name__)
show("voc-seg", ds.VOCDataset("voc", task="Segmentation", usage="train", shuffle=False, decode=True))

# --- COCO -------------------------------------------------------------------------------------------------
for k in range(3):
    png(f"coco/{k}.png", 50 * k)
ann = {"images": [{"id": 10 + k, "file_name": f"{k}.png"} for k in range(3)],
       "categories": [{"id": 1, "name": "person", "isthing": 1}, {"id": 2, "name": "sky", "isthing": 0}],
       "annotations": [
           {"id": 1, "image_id": 10, "bbox": [0, 1, 2, 3], "category_id": 1, "iscrowd": 0, "area": 6,
            "segmentation": [[1, 2, 3, 4, 5, 6], [1, 1, 2, 2]], "keypoints": list(range(51)), "num_keypoints": 17,
            "caption": "a person"},
           {"id": 2, "image_id": 12, "bbox": [4, 5, 6, 7], "category_id": 2, "iscrowd": 0, "area": 42,
            "segmentation": [[9, 9, 8, 8, 7, 7]], "keypoints": [1] * 51, "num_keypoints": 3, "caption": "sky"},
           {"id": 3, "image_id": 11, "bbox": [1, 1, 1, 1], "category_id": 1, "iscrowd": 0, "area": 1,
            "segmentation": [[0, 0, 1, 1]], "keypoints": [2] * 51, "num_keypoints": 5, "caption": "blue"}]}
with open("coco/ann.json", "w") as f:
    json.dump(ann, f)
pan = {"images": ann["images"], "categories": ann["categories"],
       "annotations": [{"image_id": k, "file_name": f"{k - 10}.png",
                        "segments_info": [{"id": 5, "category_id": 2, "iscrowd": 0, "bbox": [1, 2, 3, 4],
                                           "area": 12}]} for k in (10, 11, 12)]}
with open("coco/pan.json", "w") as f:
    json.dump(pan, f)
for task in ("Detection", "Stuff", "Keypoint", "Captioning"):
    show("coco-" + task, ds.CocoDataset("coco", "coco/ann.json", task=task, shuffle=False, decode=True))
show("coco-Panoptic", ds.CocoDataset("coco", "coco/pan.json", task="Panoptic", shuffle=False, decode=True))
try:
    print("coco-classes", ds.CocoDataset("coco", "coco/ann.json").get_class_indexing())
except Exception as exc:  # noqa: BLE001
    print("coco-classes ERROR", type(exc).__name__)

# --- CelebA, Caltech256, Food101, SST2, CLUE, Multi30k ------------------------------------------------------
os.makedirs("celeba", exist_ok=True)
for k in range(3):
    png(f"celeba/00000{k + 1}.jpg", 40 * k)
with open("celeba/list_attr_celeba.txt", "w") as f:
    f.write("3\nSmiling Young\n000001.jpg 1 -1\n000002.jpg -1 -1\n000003.jpg  1  1\n")
with open("celeba/list_eval_partition.txt", "w") as f:
    f.write("000001.jpg 0\n000002.jpg 1\n000003.jpg 0\n")
show("celeba-all", ds.CelebADataset("celeba", shuffle=False, decode=True))
show("celeba-train", ds.CelebADataset("celeba", shuffle=False, usage="train", decode=True))
for k, cls in enumerate(("001.ak47", "002.bat")):
    png(f"c256/{cls}/{k + 1:03d}_0001.jpg", 50 * k)
show("caltech256", ds.Caltech256Dataset("c256", shuffle=False, decode=True))
for cls, ids in (("apple_pie", ["1", "2"]), ("ramen", ["7"])):
    for i in ids:
        png(f"food/images/{cls}/{i}.jpg", 3)
os.makedirs("food/meta", exist_ok=True)
open("food/meta/train.txt", "w").write("apple_pie/1\nramen/7\n")
open("food/meta/test.txt", "w").write("apple_pie/2\n")
show("food101", ds.Food101Dataset("food", usage="train", shuffle=False, decode=True))
os.makedirs("sst", exist_ok=True)
open("sst/dev.tsv", "w").write("sentence\tlabel\ngood\t1\nbad\t0\n")
open("sst/test.tsv", "w").write("index\tsentence\n0\tuneasy mishmash\n")
show("sst2-dev", ds.SST2Dataset("sst", usage="dev", shuffle=False))
show("sst2-test", ds.SST2Dataset("sst", usage="test", shuffle=False))
with open("afqmc.json", "w") as f:
    f.write(json.dumps({"sentence1": "a", "sentence2": "b", "label": "0"}) + "\n")
with open("afqmc_test.json", "w") as f:
    f.write(json.dumps({"id": 3, "sentence1": "a", "sentence2": "b"}) + "\n")
show("clue-afqmc", ds.CLUEDataset("afqmc.json", task="AFQMC", usage="train", shuffle=False))
show("clue-afqmc-test", ds.CLUEDataset("afqmc_test.json", task="AFQMC", usage="test", shuffle=False))
os.makedirs("m30k/training", exist_ok=True)
open("m30k/training/train.en", "w").write("A dog.\nA cat.\n")
open("m30k/training/train.de", "w").write("Ein Hund.\nEine Katze.\n")
show("multi30k", ds.Multi30kDataset("m30k", usage="train", shuffle=False, language_pair=["de", "en"]))

# --- QMNIST, USPS ---------------------------------------------------------------------------------------
os.makedirs("qmnist", exist_ok=True)
for prefix, n, first in (("qmnist-train", 3, 0), ("qmnist-test", 2, 7)):
    img = np.full((n, 28, 28), first, np.uint8)
    with open(f"qmnist/{prefix}-images-idx3-ubyte", "wb") as f:
        f.write(bytes([0, 0, 8, 3]) + b"".join(int(d).to_bytes(4, "big") for d in img.shape) + img.tobytes())
    lab = (np.arange(n * 8).reshape(n, 8) + first).astype(">i4")
    with open(f"qmnist/{prefix}-labels-idx2-int", "wb") as f:
        f.write(bytes([0, 0, 12, 2]) + b"".join(int(d).to_bytes(4, "big") for d in lab.shape) + lab.tobytes())
show("qmnist", ds.QMnistDataset("qmnist", shuffle=False))
show("qmnist-full", ds.QMnistDataset("qmnist", usage="test", compat=False, shuffle=False))
os.makedirs("usps", exist_ok=True)
vals = np.linspace(-1, 1, 256)
open("usps/usps.t", "w").write("10 " + " ".join(f"{k + 1}:{v:.6f}" for k, v in enumerate(vals)) + " \n3 "
                               + " ".join(f"{k}:0.5" for k in range(1, 257)) + " \n")
# pixel values are left out: MindSpore's conversion of the [-1, 1] values differs from (v + 1) / 2 * 255 by one
# grey level in places (not reproduced)
print("usps", [(r[0].shape, int(r[1])) for r in ds.USPSDataset("usps", usage="test", shuffle=False)
               .create_tuple_iterator(output_numpy=True)])


# --- audio ------------------------------------------------------------------------------------------------
def wav(path, samples, rate):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, "<i2").tobytes())


wav("yesno/0_1_0_0_1_0_1_1.wav", [0, 16384, -32768], 8000)
show("yesno", ds.YesNoDataset("yesno", shuffle=False))
wav("lj/wavs/LJ001-0001.wav", [100, 200, -300], 22050)
open("lj/metadata.csv", "w").write("LJ001-0001|Printing, in 1|Printing, in one\n")
show("ljspeech", ds.LJSpeechDataset("lj", shuffle=False))
for rel in ("yes/aa_nohash_0.wav", "yes/bb_nohash_1.wav", "no/aa_nohash_2.wav"):
    wav("sc/" + rel, [1, 2], 16000)
open("sc/validation_list.txt", "w").write("yes/bb_nohash_1.wav\n")
open("sc/testing_list.txt", "w").write("no/aa_nohash_2.wav\n")
show("speechcommands", ds.SpeechCommandsDataset("sc", shuffle=False))
print("speechcommands-train", [str(r[2]) + "/" + str(r[3]) for r in
                               ds.SpeechCommandsDataset("sc", usage="train", shuffle=False).create_tuple_iterator(output_numpy=True)])
wav("arctic/cmu_us_aew_arctic/wav/arctic_a0001.wav", [0, 8192], 16000)
os.makedirs("arctic/cmu_us_aew_arctic/etc", exist_ok=True)
open("arctic/cmu_us_aew_arctic/etc/txt.done.data", "w").write('( arctic_a0001 "Author of the danger trail." )\n')
show("cmuarctic", ds.CMUArcticDataset("arctic", shuffle=False))
