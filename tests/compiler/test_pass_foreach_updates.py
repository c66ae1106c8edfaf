"""foreach_updates: IR text before → after, parameter updates unchanged (pass_check)."""
from openspore.compiler.passes.foreach_updates import foreach_updates

from .pass_check import check

MOM = "use_nesterov=False, use_locking=False, gradient_scale=1.0"


def test_a_run_of_momentum_updates_becomes_one():
    before = f"""
graph @step(%0 g0: f32[3,2], %1 g1: f32[2]) {{
  %2 = weight "a" : f32[3,2]
  %3 = weight "moments.a" : f32[3,2]
  %4 = weight "lr" : f32[]
  %5 = weight "momentum" : f32[]
  %6 = ApplyMomentum[{MOM}](%2, %3, %4, %0, %5) : f32[3,2]
  %7 = weight "b" : f32[2]
  %8 = weight "moments.b" : f32[2]
  %9 = ApplyMomentum[{MOM}](%7, %8, %4, %1, %5) : f32[2]
  %10 = Neg(%0) : f32[3,2]
  return %10
}}"""
    after = f"""
graph @step(%0 g0: f32[3,2], %1 g1: f32[2]) {{
  %2 = weight "a" : f32[3,2]
  %3 = weight "moments.a" : f32[3,2]
  %4 = weight "lr" : f32[]
  %5 = weight "momentum" : f32[]
  %7 = weight "b" : f32[2]
  %8 = weight "moments.b" : f32[2]
  %11 = make_tuple(%2, %7) : (f32[3,2], f32[2])
  %12 = make_tuple(%3, %8) : (f32[3,2], f32[2])
  %13 = make_tuple(%0, %1) : (f32[3,2], f32[2])
  %14 = ForeachApplyMomentum[{MOM}](%11, %12, %4, %13, %5) : (f32[3,2], f32[2])
  %10 = Neg(%0) : f32[3,2]
  return %10
}}"""
    check(foreach_updates, before, after)


def test_a_read_of_an_updated_variable_keeps_the_updates_apart():
    text = f"""
graph @step(%0 g0: f32[2], %1 g1: f32[2]) {{
  %2 = weight "a" : f32[2]
  %3 = weight "moments.a" : f32[2]
  %4 = weight "lr" : f32[]
  %5 = weight "momentum" : f32[]
  %6 = ApplyMomentum[{MOM}](%2, %3, %4, %0, %5) : f32[2]
  %7 = Neg(%2) : f32[2]
  %8 = weight "moments.b" : f32[2]
  %9 = ApplyMomentum[{MOM}](%7, %8, %4, %1, %5) : f32[2]
  return %0
}}"""
    check(foreach_updates, text, text, run=False)


def test_different_hyper_parameters_or_used_results_are_left_alone():
    text = f"""
graph @step(%0 g0: f32[2], %1 g1: f32[2]) {{
  %2 = weight "a" : f32[2]
  %3 = weight "moments.a" : f32[2]
  %4 = weight "lr" : f32[]
  %5 = weight "momentum" : f32[]
  %6 = weight "lr2" : f32[]
  %7 = ApplyMomentum[{MOM}](%2, %3, %4, %0, %5) : f32[2]
  %8 = weight "b" : f32[2]
  %9 = weight "moments.b" : f32[2]
  %10 = ApplyMomentum[{MOM}](%8, %9, %6, %1, %5) : f32[2]
  %11 = weight "c" : f32[2]
  %12 = weight "moments.c" : f32[2]
  %13 = ApplyMomentum[{MOM}](%11, %12, %6, %1, %5) : f32[2]
  return %13
}}"""
    check(foreach_updates, text, text)
