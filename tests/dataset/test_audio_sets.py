"""The speech/music sets on tiny WAV / SPHERE files written here in each official layout."""
import os
import wave

import numpy as np
import pytest

import openspore.dataset as ds


def write_wav(path, samples, rate=16000, width=2):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, f"<i{width}").tobytes())


def _rows(data):
    return list(data.create_tuple_iterator(output_numpy=True))


def test_cmu_arctic_and_ljspeech(tmp_path):
    root = str(tmp_path)
    arctic = os.path.join(root, "cmu_us_slt_arctic")
    write_wav(os.path.join(arctic, "wav", "arctic_a0001.wav"), [0, 8192], rate=16000)
    write_wav(os.path.join(arctic, "wav", "arctic_a0002.wav"), [-16384], rate=16000)
    os.makedirs(os.path.join(arctic, "etc"))
    with open(os.path.join(arctic, "etc", "txt.done.data"), "w") as f:
        f.write('( arctic_a0001 "Author of the danger trail." )\n( arctic_a0002 "Not at this particular case." )\n')
    rows = _rows(ds.CMUArcticDataset(root, name="slt", shuffle=False))
    assert np.allclose(rows[0][0], [[0.0, 8192 / 32767]]) and rows[0][0].dtype == np.float32 and int(rows[0][1]) == 16000
    assert [str(r[2]) for r in rows] == ["Author of the danger trail.", "Not at this particular case."]
    assert str(rows[1][3]) == "a0002"  # the "arctic_" prefix dropped, as MindSpore does
    lj = str(tmp_path / "lj")
    write_wav(os.path.join(lj, "wavs", "LJ001-0001.wav"), [100, 200], rate=22050)
    with open(os.path.join(lj, "metadata.csv"), "w") as f:
        f.write('LJ001-0001|Printing, "in" 1|Printing, in one\n')
    waveform, rate, text, norm = _rows(ds.LJSpeechDataset(lj))[0]
    assert int(rate) == 22050 and rate.dtype == np.int32 and str(text) == 'Printing, "in" 1'
    assert str(norm) == "Printing, in one" and waveform.shape == (1, 2)


def test_gtzan_librispeech_yesno(tmp_path):
    gt = str(tmp_path / "gtzan")
    write_wav(os.path.join(gt, "genres", "blues", "blues.00000.wav"), [1])
    write_wav(os.path.join(gt, "genres", "rock", "rock.00000.wav"), [2])
    assert [str(r[2]) for r in _rows(ds.GTZANDataset(gt, shuffle=False))] == ["blues", "rock"]
    with pytest.raises(NotImplementedError, match="usage 'all'"):
        ds.GTZANDataset(gt, usage="train")
    lt = str(tmp_path / "libritts")
    stem = os.path.join(lt, "dev-clean", "84", "121123", "84_121123_000007_000001")
    write_wav(stem + ".wav", [0, 0, 0], rate=24000)
    with open(os.path.join(lt, "dev-clean", "84", "121123", "84_121123.trans.tsv"), "w") as f:
        f.write("84_121123_000007_000001\tHello, Mr. X\tHello, Mister X\n")
    row = next(ds.LibriTTSDataset(lt, usage="dev-clean").create_dict_iterator(output_numpy=True))
    assert str(row["normalized_text"]) == "Hello, Mister X" and int(row["speaker_id"]) == 84
    assert int(row["chapter_id"]) == 121123 and str(row["utterance_id"]) == "84_121123_000007_000001"
    yn = str(tmp_path / "yesno")
    write_wav(os.path.join(yn, "1_1_0_0_0_0_0_0.wav"), [5], rate=8000)
    write_wav(os.path.join(yn, "0_0_0_0_0_0_0_1.wav"), [6], rate=8000)
    assert [r[2].tolist() for r in _rows(ds.YesNoDataset(yn, shuffle=False))] == [[0] * 7 + [1], [1, 1] + [0] * 6]


def test_speech_commands_splits(tmp_path):
    root = str(tmp_path)
    for rel in ("yes/aa_nohash_0.wav", "yes/bb_nohash_1.wav", "no/aa_nohash_2.wav", "_background_noise_/x.wav"):
        write_wav(os.path.join(root, rel), [1])
    open(os.path.join(root, "validation_list.txt"), "w").write("yes/bb_nohash_1.wav\n")
    open(os.path.join(root, "testing_list.txt"), "w").write("no/aa_nohash_2.wav\n")
    rows = _rows(ds.SpeechCommandsDataset(root, shuffle=False))
    assert [(str(r[2]), str(r[3]), int(r[4])) for r in rows] == [("no", "aa", 2), ("yes", "aa", 0), ("yes", "bb", 1)]
    assert [str(r[3]) for r in _rows(ds.SpeechCommandsDataset(root, usage="train"))] == ["aa"]
    assert [str(r[2]) for r in _rows(ds.SpeechCommandsDataset(root, usage="test"))] == ["no"]


def test_tedlium_sphere_segments(tmp_path):
    root = str(tmp_path)
    talk = os.path.join(root, "TEDLIUM_release1", "test", "sph", "Talk_A.sph")
    os.makedirs(os.path.dirname(talk))
    samples = np.arange(40, dtype="<i2") * 100
    header = ("NIST_1A\n   1024\nsample_count -i 40\nsample_rate -i 10\nchannel_count -i 1\n"
              "sample_n_bytes -i 2\nsample_coding -s3 pcm\nsample_byte_format -s2 01\nend_head\n").encode()
    with open(talk, "wb") as f:
        f.write(header.ljust(1024, b" ") + samples.tobytes())
    os.makedirs(os.path.join(root, "TEDLIUM_release1", "test", "stm"))
    with open(os.path.join(root, "TEDLIUM_release1", "test", "stm", "Talk_A.stm"), "w") as f:
        f.write("Talk_A 1 Talk_A 0.0 1.0 <o,f0,male> hello world\n"
                "Talk_A 1 inter_segment_gap 1.0 2.0 <o,,unknown> ignore_time_segment_in_scoring\n"
                "Talk_A 1 Talk_A 2.0 3.0 <o,f0,male> again\n")
    rows = _rows(ds.TedliumDataset(root, "release1", usage="test", shuffle=False))
    assert [str(r[2]) for r in rows] == ["hello world", "again"] and int(rows[0][1]) == 10
    assert np.allclose(rows[1][0], samples[20:30][None] / 32767) and str(rows[0][5]) == "<o,f0,male>"
