#pragma once
// A number that is either a numpy float32 scalar or a Python float, combined as numpy 2 combines
// them (NEP 50): when a float32 meets a Python number, the Python number is rounded to float32 and
// so is the result; two Python floats stay double. sacrebleu's chrF computes its bootstrap scores
// this way from float32 sums, with Python floats (eps, 0.0) mixed in on some branches.
namespace invar::stats {

struct NumpyScalar {
  double value = 0;
  bool float32 = false;

  NumpyScalar() = default;
  NumpyScalar(double python_number) : value(python_number) {}  // NOLINT: Python numbers convert
  static NumpyScalar f32(float v) { return {static_cast<double>(v), true}; }

  template <typename Op>
  static NumpyScalar apply(NumpyScalar a, NumpyScalar b, Op op) {
    if (a.float32 || b.float32) return f32(op(static_cast<float>(a.value), static_cast<float>(b.value)));
    return NumpyScalar(op(a.value, b.value));
  }
  friend NumpyScalar operator+(NumpyScalar a, NumpyScalar b) { return apply(a, b, [](auto x, auto y) { return x + y; }); }
  friend NumpyScalar operator-(NumpyScalar a, NumpyScalar b) { return apply(a, b, [](auto x, auto y) { return x - y; }); }
  friend NumpyScalar operator*(NumpyScalar a, NumpyScalar b) { return apply(a, b, [](auto x, auto y) { return x * y; }); }
  friend NumpyScalar operator/(NumpyScalar a, NumpyScalar b) { return apply(a, b, [](auto x, auto y) { return x / y; }); }
  NumpyScalar& operator+=(NumpyScalar b) { return *this = *this + b; }
  NumpyScalar& operator/=(NumpyScalar b) { return *this = *this / b; }
  friend bool operator>(NumpyScalar a, NumpyScalar b) { return a.value > b.value; }
  friend bool operator==(NumpyScalar a, NumpyScalar b) { return a.value == b.value; }

 private:
  NumpyScalar(double v, bool f) : value(v), float32(f) {}
};

}  // namespace invar::stats
