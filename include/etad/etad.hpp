// etad/etad.hpp — the one include for users: every public layer of etad.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/core/expression.hpp>
#include <etad/core/rule.hpp>

#include <etad/ops/arithmetic.hpp>
#include <etad/ops/exponential.hpp>
#include <etad/ops/gradient_control.hpp>
#include <etad/ops/logical.hpp>
#include <etad/ops/nonsmooth.hpp>
#include <etad/ops/power.hpp>
#include <etad/ops/reductions.hpp>
#include <etad/ops/special.hpp>
#include <etad/ops/trigonometric.hpp>

#include <etad/static/evaluate.hpp>
#include <etad/static/gradient.hpp>
#include <etad/static/loop.hpp>

#include <etad/tape/real.hpp>
#include <etad/tape/call.hpp>
#include <etad/tape/linear_algebra.hpp>
#include <etad/tape/map_reduce.hpp>
#include <etad/tape/reduce.hpp>
#include <etad/tape/tape.hpp>

#include <etad/custom/checkpointed_loop.hpp>
#include <etad/custom/custom_gradient.hpp>
#include <etad/custom/recompute_grad.hpp>
