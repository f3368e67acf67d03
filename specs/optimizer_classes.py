"""The TF1 optimizer classes: documented constructor signatures and defaults
(TF's API reference, each ``tf.compat.v1.train.*Optimizer`` entry),
checked against ``ref``'s ``__init__`` signatures, and the Optimizer base
class's ``minimize`` / ``compute_gradients`` / ``apply_gradients`` defaults
and gating constants. The update formulas have their own cards (adam.py,
momentum.py, ...); tests/optimizers/test_classes.py and test_train_vs_tf.py
check the classes against TensorFlow."""
from specs.card import SpecCard

SEED = "002_05f9b9b98e89c771.txt"


def _card(cls, module, quote, defaults, errors=(), notes=""):
    return SpecCard(name=cls, seed=SEED, section=f"tf.compat.v1.train.{cls}", quote=quote,
                    target=f"ref.optimizers.{module}.{cls}.__init__", defaults=defaults, errors=errors, notes=notes)


CARDS = [
    _card("GradientDescentOptimizer", "gradient_descent",
          "tf.compat.v1.train.GradientDescentOptimizer( learning_rate, use_locking=False, name='GradientDescent' )",
          dict(use_locking=False, name="GradientDescent")),
    _card("AdadeltaOptimizer", "adadelta",
          "tf.compat.v1.train.AdadeltaOptimizer( learning_rate=0.001, rho=0.95, epsilon=1e-08, use_locking=False, "
          "name='Adadelta' )",
          dict(learning_rate=0.001, rho=0.95, epsilon=1e-08, use_locking=False, name="Adadelta")),
    _card("AdagradOptimizer", "adagrad",
          "tf.compat.v1.train.AdagradOptimizer( learning_rate, initial_accumulator_value=0.1, use_locking=False, "
          "name='Adagrad' )",
          dict(initial_accumulator_value=0.1, use_locking=False, name="Adagrad"),
          errors=("ValueError: initial_accumulator_value must be positive: <value> (if <= 0)",)),
    _card("AdagradDAOptimizer", "adagrad_da",
          "tf.compat.v1.train.AdagradDAOptimizer( learning_rate, global_step, "
          "initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0, "
          "l2_regularization_strength=0.0, use_locking=False, name='AdagradDA' )",
          dict(initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0,
               l2_regularization_strength=0.0, use_locking=False, name="AdagradDA"),
          errors=("TypeError: global_step is a required argument",
                  "ValueError: initial_gradient_squared_accumulator_value must be positive (if <= 0)"),
          notes="The kernels get global_step + 1, read before the step's updates (TF's _prepare)."),
    _card("MomentumOptimizer", "momentum",
          "tf.compat.v1.train.MomentumOptimizer( learning_rate, momentum, use_locking=False, name='Momentum', "
          "use_nesterov=False )",
          dict(use_locking=False, name="Momentum", use_nesterov=False)),
    _card("AdamOptimizer", "adam",
          "tf.compat.v1.train.AdamOptimizer( learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, "
          "use_locking=False, name='Adam' )",
          dict(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking=False, name="Adam")),
    _card("FtrlOptimizer", "ftrl",
          "tf.compat.v1.train.FtrlOptimizer( learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1, "
          "l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False, name='Ftrl', "
          "accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0, beta=None )",
          dict(learning_rate_power=-0.5, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
               l2_regularization_strength=0.0, use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
               l2_shrinkage_regularization_strength=0.0, beta=None),
          errors=("ValueError: learning_rate_power > 0", "ValueError: initial_accumulator_value < 0",
                  "ValueError: l1_regularization_strength < 0", "ValueError: l2_regularization_strength < 0",
                  "ValueError: l2_shrinkage_regularization_strength < 0")),
    _card("RMSPropOptimizer", "rmsprop",
          "tf.compat.v1.train.RMSPropOptimizer( learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, "
          "use_locking=False, centered=False, name='RMSProp' )",
          dict(decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False, name="RMSProp"),
          notes="TF initializes the 'rms' slot to ones, not zeros."),
    _card("ProximalAdagradOptimizer", "proximal_adagrad",
          "tf.compat.v1.train.ProximalAdagradOptimizer( learning_rate, initial_accumulator_value=0.1, "
          "l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False, "
          "name='ProximalAdagrad' )",
          dict(initial_accumulator_value=0.1, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
               use_locking=False, name="ProximalAdagrad"),
          errors=("ValueError: initial_accumulator_value must be positive (if <= 0)",)),
    _card("ProximalGradientDescentOptimizer", "proximal_gradient_descent",
          "tf.compat.v1.train.ProximalGradientDescentOptimizer( learning_rate, l1_regularization_strength=0.0, "
          "l2_regularization_strength=0.0, use_locking=False, name='ProximalGradientDescent' )",
          dict(l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
               name="ProximalGradientDescent")),
    SpecCard(name="Optimizer.minimize", seed=SEED, section="tf.compat.v1.train.Optimizer / minimize",
             quote="minimize( loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None, "
                   "colocate_gradients_with_ops=False, name=None, grad_loss=None )",
             target="ref.optimizers.optimizer.Optimizer.minimize",
             defaults=dict(global_step=None, var_list=None, gate_gradients=1, aggregation_method=None,
                           colocate_gradients_with_ops=False, name=None, grad_loss=None),
             errors=("ValueError: No gradients provided for any variable, check your graph for ops that do not "
                     "support gradients, between variables [...] and loss ...",),
             notes="GATE_OP is 1 ('Class Variables GATE_GRAPH 2 GATE_NONE 0 GATE_OP 1')."),
    SpecCard(name="Optimizer.compute_gradients", seed=SEED, section="tf.compat.v1.train.Optimizer / compute_gradients",
             quote="compute_gradients( loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None, "
                   "colocate_gradients_with_ops=False, grad_loss=None )",
             target="ref.optimizers.optimizer.Optimizer.compute_gradients",
             defaults=dict(var_list=None, gate_gradients=1, aggregation_method=None,
                           colocate_gradients_with_ops=False, grad_loss=None),
             errors=("TypeError: var_list contains anything else than Variable objects",
                     "ValueError: If some arguments are invalid")),
    SpecCard(name="Optimizer.apply_gradients", seed=SEED, section="tf.compat.v1.train.Optimizer / apply_gradients",
             quote="apply_gradients( grads_and_vars, global_step=None, name=None )",
             target="ref.optimizers.optimizer.Optimizer.apply_gradients",
             defaults=dict(global_step=None, name=None),
             errors=("TypeError If grads_and_vars is malformed.", "ValueError If none of the variables have gradients.")),
    SpecCard(name="Optimizer.gating", seed=SEED, section="tf.compat.v1.train.Optimizer / Class Variables",
             quote="Class Variables GATE_GRAPH 2 GATE_NONE 0 GATE_OP 1",
             notes="Checked by tests/optimizers/test_classes.py::test_gating_constants."),
]
