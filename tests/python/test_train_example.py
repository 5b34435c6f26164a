"""examples/imagenet/train.py's captured training step (--cuda-graph) trains as the eager one.

GPU only: CUDA graphs need a device.
"""

import importlib.util
import pathlib

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

pytestmark = pytest.mark.gpu
SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "imagenet" / "train.py"


def load_train():
    spec = importlib.util.spec_from_file_location("train_example", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(train, graphed, batches):
    torch.manual_seed(3)
    args = train.parse_args(["unused", "--arch", "resnet18"]
                            + (["--cuda-graph"] if graphed else []))
    model = train.make_model(args, 10, torch.device("cuda"))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    step = train.make_train_step(model, opt, args)
    losses = [float(step(x, y)[0].detach()) for x, y in batches]
    return losses, [p.detach().clone() for p in model.parameters()]


def test_graphed_step_trains_as_the_eager_step(monkeypatch):
    train = load_train()
    monkeypatch.setattr(torch.backends.cudnn, "deterministic", True)
    g = torch.Generator(device="cuda").manual_seed(7)
    # Warm-up, the capture and two more replays, a partial batch (eager), then replays again.
    sizes = [16] * (train.GraphedStep.WARMUP + 3) + [5, 16, 16]
    batches = [(torch.randn(b, 3, 64, 64, device="cuda", generator=g),
                torch.randint(0, 10, (b,), device="cuda", generator=g)) for b in sizes]
    eager_losses, eager_params = run(train, False, batches)
    graph_losses, graph_params = run(train, True, batches)
    assert all(l > 0 for l in eager_losses)
    # bf16 autocast: the two runs differ only in kernel choice and summation order.
    assert graph_losses == pytest.approx(eager_losses, rel=2e-2)
    for a, b in zip(eager_params, graph_params):
        assert torch.allclose(a, b, rtol=5e-2, atol=5e-3)
    # The weights moved: the steps did update the model.
    torch.manual_seed(3)
    fresh = train.make_model(train.parse_args(["unused"]), 10, torch.device("cuda"))
    assert any(not torch.equal(p, q) for p, q in zip(fresh.parameters(), graph_params))
