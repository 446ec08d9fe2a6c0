"""validate_args: PyTorch's ValueError (type and full message) for invalid parameters and for
values outside the support; Distribution.set_default_validate_args; no checks while traced."""

import jax
import pytest
import torch

import jtorch
import jtorch.distributions as jd

NAN = float("nan")

# each builds and uses a distribution in library `T`; PyTorch raises for every one
INVALID = {
    "scalar_parameter": lambda T: T.distributions.Normal(0.0, -1.0),
    "tensor_parameter": lambda T: T.distributions.Normal(T.tensor([0.0, 1.0]),
                                                         T.tensor([1.0, -1.0])),
    "probs_out_of_range": lambda T: T.distributions.Bernoulli(probs=1.5),
    "probs_and_logits": lambda T: T.distributions.Bernoulli(probs=0.5, logits=0.0),
    "not_simplex": lambda T: T.distributions.Categorical(T.tensor([0.5, -0.1])),
    "gamma_concentration": lambda T: T.distributions.Gamma(T.tensor([1.0, 0.0]), 1.0),
    "mvn_covariance": lambda T: T.distributions.MultivariateNormal(
        T.zeros(2), covariance_matrix=T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "value_nan": lambda T: T.distributions.Normal(0.0, 1.0).log_prob(T.tensor(NAN)),
    "value_outside_interval": lambda T: T.distributions.Beta(1.0, 1.0).log_prob(T.tensor(2.0)),
    "value_not_integer": lambda T: T.distributions.Poisson(2.0).log_prob(T.tensor(1.5)),
    "value_not_simplex": lambda T: T.distributions.Dirichlet(T.tensor([1.0, 1.0])).log_prob(
        T.tensor([0.5, 0.6])),
    "value_not_tensor": lambda T: T.distributions.Normal(0.0, 1.0).log_prob(0.5),
    "value_shape": lambda T: T.distributions.Normal(T.zeros(3), 1.0).log_prob(T.zeros(2)),
    "categorical_value": lambda T: T.distributions.Categorical(T.tensor([0.5, 0.5])).log_prob(
        T.tensor(2)),
    "uniform_bounds": lambda T: T.distributions.Uniform(1.0, 0.0),
    "one_hot_value": lambda T: T.distributions.OneHotCategorical(
        T.tensor([0.5, 0.5])).log_prob(T.tensor([1.0, 1.0])),
    "binomial_value": lambda T: T.distributions.Binomial(3, T.tensor(0.5)).log_prob(
        T.tensor(4.0)),
    "exponential_value": lambda T: T.distributions.Exponential(1.0).log_prob(T.tensor(-1.0)),
}


@pytest.fixture(autouse=True)
def torch_validates():
    """Real PyTorch's first torch.compile (TorchPatcher.patch in torch._dynamo) switches
    distribution validation off for the whole process; an earlier test on the same worker may
    have compiled. Validate in PyTorch here, as a fresh process does, and restore afterwards."""
    before = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_arguments_raise_pytorchs_error(name):
    with pytest.raises(Exception) as te:
        INVALID[name](torch)
    with pytest.raises(Exception) as je:
        INVALID[name](jtorch)
    assert type(je.value) is type(te.value)
    assert str(je.value) == str(te.value)


def test_validation_can_be_switched_off():
    assert not jd.Normal(0.0, -1.0, validate_args=False).scale.item() > 0
    jd.Distribution.set_default_validate_args(False)
    try:
        jd.Normal(0.0, -1.0)
        jd.Beta(1.0, 1.0).log_prob(jtorch.tensor(2.0))
    finally:
        jd.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        jd.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        jd.Normal(0.0, 1.0, validate_args=True).log_prob(jtorch.tensor(NAN))


def test_validation_is_skipped_while_traced():
    # the values are unknown inside the trace: no check runs there, none raises
    def f(scale):
        d = jd.Normal(jtorch.zeros(2), jtorch.Tensor._make(scale))
        return d.log_prob(jtorch.zeros(2))._value

    out = jax.jit(f)(jax.numpy.array([1.0, -1.0]))
    assert out.shape == (2,)
    compiled = jtorch.compile(lambda s: jd.Normal(0.0, s).log_prob(jtorch.tensor(0.5)))
    assert compiled(jtorch.tensor(-1.0)).isnan().item()
