# frozen_string_literal: true

module Mallard
  module Analysis
    # Which gem a loaded file belongs to, from the directories the boot probe listed for each loaded gem spec
    # (its gem directory and require paths), Ruby's own library directories and the app's: the longest
    # directory that holds the file wins, so a gem vendored inside another still counts as itself.
    class FileOwners
      RUBY = "ruby"
      APP = "app"
      OTHER = "other"

      # @param gems [Array(String, String, Array<String>)] name, version, directories
      def initialize(gems:, ruby_dirs:, app_dir:)
        entries = gems.flat_map { |name, version, dirs| Array(dirs).map { |dir| [dir, name, version] } }
        entries += Array(ruby_dirs).compact.map { |dir| [dir, RUBY, nil] }
        entries << [app_dir, APP, nil] if app_dir
        @entries = entries.map { |dir, name, version| [File.join(dir, ""), name, version] }
                          .sort_by { |dir, _, _| -dir.size }
        @versions = gems.to_h { |name, version, _| [name, version] }
        @owner = {}
        @display = {}
        @stems = gems.flat_map { |name, _, _| [[name, name], [name.tr("-", "/"), name]] }.uniq
                     .sort_by { |stem, _| -stem.size }
      end

      # @return [String] a gem's name, or "ruby", "app", "other"
      def owner(file)
        @owner.fetch(file) { @owner[file] = find_owner(file) }
      end

      def version(name) = @versions[name]

      # A required name as a person would write it: a path within its gem's require directory, or within the
      # app (./config/application.rb); a name given as a feature ("rails/all") stays as it was given.
      def display(name)
        @display.fetch(name) { @display[name] = shorten(name) }
      end

      private

      # Each repeat asks about the same few thousand files: answers are remembered.
      def find_owner(file)
        dir, name, = entry(file)
        return OTHER unless dir
        return name unless name == RUBY

        packaged_gem(file.delete_prefix(dir)) || RUBY
      end

      def shorten(name)
        return name unless name.start_with?("/")

        dir, owner, = entry(name)
        return name unless dir

        relative = name.delete_prefix(dir)
        owner == APP ? "./#{relative}" : relative
      end

      # Debian installs some gems' files into vendor_ruby, away from the gem's own directory: a file there whose
      # path starts with a loaded gem's name ("mail/…" for mail, "rails/html/…" for rails-html-sanitizer) is that
      # gem's, as is a default gem's file in Ruby's own library ("set.rb" for set).
      def packaged_gem(relative)
        stem = relative.sub(/\.(rb|so|bundle)\z/, "")
        @stems.find { |path, _| stem == path || stem.start_with?("#{path}/") }&.last
      end

      def entry(file)
        return if file.nil?

        @entries.find { |dir, _, _| file.start_with?(dir) }
      end
    end
  end
end
