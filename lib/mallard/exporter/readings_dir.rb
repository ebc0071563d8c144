# frozen_string_literal: true

module Mallard
  module Exporter
    # The private directory where each process of the tree leaves its readings, one file named by its pid. Mode
    # 0700 and a random name: the files say nothing secret, but no other user may plant or swap one. Any
    # process may be first to need it (a worker forked before the master's first write), so each creates it if
    # it is not there, and refuses one it did not make (another owner, or open to others).
    class ReadingsDir
      attr_reader :path

      def initialize(path)
        @path = path
      end

      # Written to a temporary name and renamed, so the server never reads half a file.
      def write(pid, text)
        prepare
        temporary = File.join(@path, ".#{pid}.tmp")
        File.write(temporary, text, perm: 0o600)
        File.rename(temporary, File.join(@path, pid.to_s))
      end

      # @return [Hash{Integer=>String}] each file's text by pid
      def read_all
        Dir.children(@path).each_with_object({}) do |name, texts|
          pid = Integer(name, 10, exception: false)
          texts[pid] = File.read(File.join(@path, name)) if pid
        rescue SystemCallError
          next # its process removed it just now
        end
      rescue SystemCallError
        {}
      end

      def remove(pid)
        File.unlink(File.join(@path, pid.to_s))
      rescue SystemCallError
        nil
      end

      def remove_all
        Dir.children(@path).each { |name| File.unlink(File.join(@path, name)) }
        Dir.rmdir(@path)
      rescue SystemCallError
        nil
      end

      private

      def prepare
        Dir.mkdir(@path, 0o700)
      rescue Errno::EEXIST
        check
      end

      def check
        stat = File.lstat(@path)
        return if stat.directory? && stat.owned? && (stat.mode & 0o077).zero?

        raise IOError, "#{@path} is not a private directory of this user"
      end
    end
  end
end
