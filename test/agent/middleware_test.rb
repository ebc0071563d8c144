# frozen_string_literal: true

# The agent is self-contained, so its tests load only the agent, not the whole gem.
require "minitest/autorun"
require "json"
require "mallard/agent/recorder"
require "mallard/agent/middleware"

class AgentMiddlewareTest < Minitest::Test
  Middleware = Mallard::Agent::Middleware

  # A response body as apps and frameworks make them: yields count chunks, optionally sleeping
  # before each, and keeps a log of what it did so tests can see ordering and forwarding.
  class ChunkBody
    attr_reader :log

    def initialize(count, pause: 0)
      @count = count
      @pause = pause
      @log = []
    end

    def each
      @count.times do |i|
        sleep @pause
        @log << [:produced, i]
        yield "chunk #{i}\n"
      end
    end

    def close
      @log << :closed
    end
  end

  class FileBody < ChunkBody
    def to_path = "/srv/app/public/big.bin"
  end

  class UnclosableBody
    def each = 3.times { |i| yield i.to_s }
  end

  # A Rack 3 streaming body: the server hands it a stream instead of iterating.
  class StreamingBody
    def call(stream) = stream << "streamed"
  end

  def setup
    @recorder = Mallard::Agent::Recorder.new(path: File::NULL)
  end

  # The interval's record as the agent file will hold it.
  def taken
    JSON.parse(@recorder.take, symbolize_names: true)
  end

  def serve(body, app_pause: 0)
    app = lambda do |_env|
      sleep app_pause
      [200, { "content-type" => "text/plain" }, body]
    end
    Middleware.new(app, recorder: @recorder).call({ "PATH_INFO" => "/" })
  end

  # What a server does with a response: iterate the body, write each chunk, close it.
  def write_out(response)
    written = []
    response[2].each { |chunk| written << chunk }
    response[2].close if response[2].respond_to?(:close)
    written
  end

  def test_an_array_body_is_returned_untouched_and_counted
    body = %w[a b c]
    response = Middleware.new(->(_env) { [200, {}, body] }, recorder: @recorder).call({})
    record = taken

    assert_same body, response[2], "servers treat arrays specially; it must reach them as it is"
    assert_equal [3], record[:chunks]
    assert_equal [nil], record[:body_ms]
  end

  def iterate(proxy)
    chunks = []
    proxy.each { |chunk| chunks << chunk }
    chunks
  end

  def test_counts_the_chunks_the_body_yields
    written = write_out(serve(ChunkBody.new(7)))
    record = taken

    assert_equal 7, written.size
    assert_equal 1, record[:requests]
    assert_equal [7], record[:chunks]
  end

  def test_in_app_time_excludes_the_time_spent_in_the_body
    write_out(serve(ChunkBody.new(4, pause: 0.05), app_pause: 0.02))
    record = taken

    assert_operator record[:in_app_ms].first, :>=, 20
    assert_operator record[:in_app_ms].first, :<, 150, "in-app time includes the body's iteration"
    assert_operator record[:body_ms].first, :>=, 200
  end

  def test_passes_chunks_on_as_they_are_yielded_without_buffering
    body = ChunkBody.new(3)
    serve(body)[2].each { |chunk| body.log << [:written, chunk] }

    assert_equal [[:produced, 0], [:written, "chunk 0\n"], [:produced, 1], [:written, "chunk 1\n"],
                  [:produced, 2], [:written, "chunk 2\n"]], body.log
  end

  def test_forwards_close_and_records_the_request_once_when_closed
    body = ChunkBody.new(2)
    proxy = serve(body)[2]
    iterate(proxy)

    assert_equal 0, taken[:requests], "recorded before the server closed the body"
    proxy.close
    proxy.close

    assert_equal %i[closed closed], body.log.grep(:closed)
    assert_equal 1, taken[:requests]
  end

  def test_a_body_without_close_is_recorded_when_iteration_ends
    proxy = serve(UnclosableBody.new)[2]
    iterate(proxy)

    assert_equal [3], taken[:chunks]
    proxy.close # servers still close what answers close; the request is not counted twice
    assert_equal 1, taken[:requests]
  end

  def test_forwards_to_path_so_servers_can_still_sendfile
    with_path = serve(FileBody.new(1))[2]
    without_path = serve(ChunkBody.new(1))[2]

    assert_respond_to with_path, :to_path
    assert_equal "/srv/app/public/big.bin", with_path.to_path
    refute_respond_to without_path, :to_path
    assert_raises(NoMethodError) { without_path.to_path }
  end

  def test_a_body_written_through_to_path_is_still_recorded_on_close
    proxy = serve(FileBody.new(1))[2]
    proxy.to_path
    proxy.close

    assert_equal [0], taken[:chunks]
  end

  def test_answers_each_call_and_to_ary_only_as_the_wrapped_body_does
    streaming = serve(StreamingBody.new)[2]
    array = serve(%w[a b c])[2]

    refute_respond_to streaming, :each
    refute_respond_to streaming, :to_ary
    assert_respond_to streaming, :call
    assert_respond_to streaming, :close
    assert_equal "streamed", streaming.call(+"")
    assert_respond_to array, :to_ary
    refute_respond_to array, :to_str
  end

  def test_an_array_taken_whole_counts_its_elements_as_chunks
    assert_equal %w[a b c], serve(%w[a b c])[2].to_ary
    assert_equal [3], taken[:chunks]
  end

  def test_without_a_recorder_the_response_is_left_untouched
    response = [200, {}, ["hi"]]
    app = ->(_env) { response }

    assert_same response, Middleware.new(app, recorder: nil).call({})
  end

  # Past a busy interval most requests are only counted: their bodies go back as the app made them.
  def test_requests_the_recorder_does_not_sample_are_left_untouched_and_counted
    2000.times { write_out(serve(ChunkBody.new(1))) }
    taken
    bodies = Array.new(2000) { ChunkBody.new(1) }
    returned = bodies.map { |body| serve(body).tap { |response| write_out(response) }[2] }
    record = taken
    untouched = returned.each_index.count { |i| returned[i].equal?(bodies[i]) }

    assert_equal 4000, record[:requests]
    assert_equal returned.size - record[:chunks].size, untouched
    assert_operator record[:chunks].size, :<, 200
  end

  def test_many_threads_record_without_losing_a_request
    threads = Array.new(8) { Thread.new { 250.times { write_out(serve(%w[a b])) } } }
    threads.each(&:join)

    assert_equal 2000, taken[:requests]
  end

  def test_a_busy_interval_is_sampled_down_to_the_cap_and_says_so
    2500.times { write_out(serve(%w[x])) }
    record = taken

    assert_equal 2500, record[:requests]
    assert_equal Mallard::Agent::Recorder::SAMPLE_CAP, record[:in_app_ms].size
    assert_equal Mallard::Agent::Recorder::SAMPLE_CAP, record[:chunks].size
    assert_equal Mallard::Agent::Recorder::SAMPLE_CAP, record[:requests_sampled]
    refute taken.key?(:requests_sampled), "the next interval starts a new sample"
  end
end
