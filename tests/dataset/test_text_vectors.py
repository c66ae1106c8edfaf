"""Vectors / GloVe / FastText / CharNGram files and ToVectors, eagerly and in a pipeline."""
import os

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import text


def test_vectors_glove_fasttext(tmp_path):
    glove = tmp_path / "glove.6B.3d.txt"
    glove.write_text("the 1 2 3\nhello 4 5 6\ncat 7 8 9\n")
    vectors = text.GloVe.from_file(str(glove), max_vectors=2)
    assert len(vectors) == 2 and vectors.dim == 3
    op = text.ToVectors(vectors, unk_init=[-1, -1, -1], lower_case_backup=True)
    assert op(np.array(["HELLO", "cat", "the"])).tolist() == [[4, 5, 6], [-1, -1, -1], [1, 2, 3]]
    assert text.ToVectors(vectors)(np.array("the")).shape == (3,)
    vec = tmp_path / "wiki.vec"
    vec.write_text("2 2\na 0.5 0.5\nb 1 1\n")
    data = ds.NumpySlicesDataset({"tok": np.array([["a", "b"], ["b", "q"]])}, shuffle=False)
    data = data.map(text.ToVectors(text.FastText.from_file(str(vec))), input_columns=["tok"])
    rows = [r[0].tolist() for r in data.create_tuple_iterator(output_numpy=True)]
    assert rows == [[[0.5, 0.5], [1, 1]], [[1, 1], [0, 0]]]
    with pytest.raises(ValueError, match="glove"):
        text.GloVe.from_file(str(vec))
    with pytest.raises(ValueError, match=".vec"):
        text.FastText.from_file(str(glove))
    bad = tmp_path / "bad.txt"
    bad.write_text("a 1 2\nb 1\n")
    with pytest.raises(RuntimeError, match="line 2"):
        text.Vectors.from_file(str(bad))


def test_char_ngram_averages_grams(tmp_path):
    path = os.path.join(tmp_path, "charNgram.txt")
    with open(path, "w") as f:
        f.write("2gram-#BEGIN#a 1 0\n2gram-ab 3 0\n3gram-ab#END# 0 4\n")
    vectors = text.CharNGram.from_file(path)
    # "ab": 2-grams #BEGIN#a, ab, b#END#; 3-grams #BEGIN#ab, ab#END#; found: (1,0), (3,0), (0,4)
    assert np.allclose(text.ToVectors(vectors)(np.array(["ab", "zz"])), [[4 / 3, 4 / 3], [0, 0]])
