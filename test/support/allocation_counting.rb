# frozen_string_literal: true

# For the agent's tests, which load only the agent: what a block allocates in this process.
module AllocationCounting
  def arrays_made
    GC.disable # nothing freed while counting: the difference is what the block made
    before = ObjectSpace.count_objects[:T_ARRAY]
    yield
    ObjectSpace.count_objects[:T_ARRAY] - before
  ensure
    GC.enable
  end
end
