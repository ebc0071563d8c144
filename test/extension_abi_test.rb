# frozen_string_literal: true

require "test_helper"

# The fingerprint that names a build of the extensions is FNV-1a over 64 bits, computed at every boot of the app.
class ExtensionAbiTest < Minitest::Test
  ExtensionAbi = Mallard::ExtensionAbi

  # The published FNV-1a 64 values of "", "a" and "foobar" (cbf29ce484222325, af63dc4c8601ec8c, 85944171f73967e8),
  # cut to 12 digits.
  def test_the_fingerprint_is_fnv_1a_over_64_bits
    fingerprints = ["", "a", "foobar"].map { |text| ExtensionAbi.fingerprint(text) }

    assert_equal %w[cbf29ce48422 af63dc4c8601 85944171f739], fingerprints
  end

  # Worked on whole 64-bit values, each byte made a Bignum: 1,800 objects in the app at every boot.
  def test_the_fingerprint_allocates_no_object_per_byte
    text = "x" * 10_000
    before = GC.stat(:total_allocated_objects)
    ExtensionAbi.fingerprint(text)

    assert_operator GC.stat(:total_allocated_objects) - before, :<, 20
  end
end
