# frozen_string_literal: true

require "test_helper"

class FileOwnersTest < Minitest::Test
  GEMS = [["activesupport", "6.1.7", ["/gems/activesupport-6.1.7", "/gems/activesupport-6.1.7/lib"]],
          ["mail", "2.7.1", ["/share/gems/mail-2.7.1", "/share/gems/mail-2.7.1/lib"]],
          ["rails-html-sanitizer", "1.4.4", ["/share/gems/rails-html-sanitizer-1.4.4/lib"]],
          ["vendored", "0.1", ["/gems/activesupport-6.1.7/vendor/vendored"]]].freeze

  def setup
    @owners = Mallard::Analysis::FileOwners.new(gems: GEMS, app_dir: "/srv/app",
                                                ruby_dirs: ["/usr/lib/ruby/3.1.0", "/usr/lib/ruby/vendor_ruby"])
  end

  def test_the_longest_directory_holding_a_file_owns_it
    assert_equal "activesupport", @owners.owner("/gems/activesupport-6.1.7/lib/active_support.rb")
    assert_equal "vendored", @owners.owner("/gems/activesupport-6.1.7/vendor/vendored/lib/v.rb")
    assert_equal "app", @owners.owner("/srv/app/config/application.rb")
    assert_equal "other", @owners.owner("/opt/elsewhere/x.rb")
    assert_equal "ruby", @owners.owner("/usr/lib/ruby/3.1.0/set.rb")
  end

  # Debian puts some gems' files in vendor_ruby, away from the gem's own directory.
  def test_a_file_in_rubys_directories_named_after_a_loaded_gem_is_that_gems
    assert_equal "mail", @owners.owner("/usr/lib/ruby/vendor_ruby/mail/parsers/address_lists_parser.rb")
    assert_equal "mail", @owners.owner("/usr/lib/ruby/vendor_ruby/mail.rb")
    assert_equal "rails-html-sanitizer", @owners.owner("/usr/lib/ruby/vendor_ruby/rails/html/sanitizer.rb")
    assert_equal "ruby", @owners.owner("/usr/lib/ruby/vendor_ruby/mailbox.rb")
  end

  def test_absolute_names_are_shown_within_their_directory_and_features_as_given
    assert_equal "active_support/core_ext", @owners.display("/gems/activesupport-6.1.7/lib/active_support/core_ext")
    assert_equal "./config/application", @owners.display("/srv/app/config/application")
    assert_equal "rails/all", @owners.display("rails/all")
    assert_equal "1.4.4", @owners.version("rails-html-sanitizer")
  end
end
