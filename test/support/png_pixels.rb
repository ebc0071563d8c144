# frozen_string_literal: true

require "zlib"

# The pixels of a PNG as Chromium writes its screenshots (8 bits per channel, RGB or RGBA, not interlaced), read
# with the standard library alone: what a screenshot shows, for tests to count colours in.
class PngPixels
  SIGNATURE = "\x89PNG\r\n\x1A\n".b
  CHANNELS = { 2 => 3, 6 => 4 }.freeze # colour type: RGB, RGBA

  attr_reader :width, :height

  def inspect = "#<PngPixels #{@width}x#{@height}>"

  def initialize(path)
    data = File.binread(path)
    raise ArgumentError, "#{path} is not a PNG" unless data.start_with?(SIGNATURE)

    chunks = chunks(data)
    @width, @height, depth, type, _compression, _filter, interlace = chunks.fetch("IHDR").unpack("NNCCCCC")
    raise ArgumentError, "unsupported PNG (depth #{depth}, type #{type}, interlace #{interlace})" \
      unless depth == 8 && CHANNELS.key?(type) && interlace.zero?

    @channels = CHANNELS.fetch(type)
    @raw = Zlib::Inflate.inflate(chunks.fetch("IDAT"))
  end

  # @return [Hash{String=>Integer}] "#rrggbb" => pixels of that colour, over rows top...bottom
  def colours(top = 0, bottom = @height)
    counts = Hash.new(0)
    rows(bottom).each_with_index do |row, y|
      next if y < top

      row.each_slice(@channels) { |r, g, b| counts[format("#%02x%02x%02x", r, g, b)] += 1 }
    end
    counts
  end

  private

  def chunks(data)
    found = Hash.new { |hash, key| hash[key] = +"".b }
    at = SIGNATURE.size
    while at < data.size
      length, type = data.unpack("Na4", offset: at)
      found[type] << data.byteslice(at + 8, length)
      at += length + 12
    end
    found
  end

  # The first `count` rows, unfiltered (PNG filters 0-4, each row against the one above it).
  def rows(count)
    stride = @width * @channels
    previous = Array.new(stride, 0)
    Array.new(count) do |y|
      line = @raw.byteslice(y * (stride + 1), stride + 1).bytes
      previous = unfilter(line.shift, line, previous)
    end
  end

  def unfilter(filter, line, above_row)
    bpp = @channels
    line.each_index do |i|
      left = i >= bpp ? line[i - bpp] : 0
      above = above_row[i]
      corner = i >= bpp ? above_row[i - bpp] : 0
      line[i] = (line[i] + predict(filter, left, above, corner)) & 0xff
    end
  end

  def predict(filter, left, above, corner)
    case filter
    when 0 then 0
    when 1 then left
    when 2 then above
    when 3 then (left + above) / 2
    else paeth(left, above, corner)
    end
  end

  def paeth(left, above, corner)
    estimate = left + above - corner
    distances = [(estimate - left).abs, (estimate - above).abs, (estimate - corner).abs]
    return left if distances[0] <= distances[1] && distances[0] <= distances[2]

    distances[1] <= distances[2] ? above : corner
  end
end
