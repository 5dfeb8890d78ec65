// The text parser against real Schedgen/LogGOPSim files and against the quirks of
// txt2bin's grammar. Expected values are counted by hand from the files.

#include <gtest/gtest.h>

#include <string>

#include "collsim/goal/schedule_stats.hpp"
#include "goal_test_util.hpp"

namespace collsim::goal {
namespace {

using testing::expect_parse_error;
using testing::parse;
using testing::expect_input_error;

TEST(TextParserRealFiles, BinaryTree16) {
  const Schedule s = read_goal_text_file(testing::example("loggopsim_binary_tree_16.goal"));
  ASSERT_EQ(s.num_ranks(), 16u);
  // Rank 0 sends to 1, 2, 4, 8 with no dependencies.
  const RankOps r0 = s.rank(0);
  ASSERT_EQ(r0.num_ops(), 4u);
  for (LocalOp i = 0; i < 4; ++i) {
    EXPECT_EQ(r0.op(i), Op::send(1, 1u << i, 0));
    EXPECT_TRUE(r0.requires_of(i).empty());
  }
  // Rank 1: l1 recv from 0, l2..l4 send to 3, 5, 9, each requiring l1.
  const RankOps r1 = s.rank(1);
  ASSERT_EQ(r1.num_ops(), 4u);
  EXPECT_EQ(r1.op(0), Op::recv(1, 0, 0));
  EXPECT_EQ(r1.op(1), Op::send(1, 3, 0));
  EXPECT_EQ(r1.op(3), Op::send(1, 9, 0));
  for (LocalOp i = 1; i < 4; ++i) {
    ASSERT_EQ(r1.requires_of(i).size(), 1u);
    EXPECT_EQ(r1.requires_of(i)[0], 0u);
  }
  // Every rank but 0 receives once; every receive is some rank's send.
  const ScheduleStats st = compute_stats(s);
  EXPECT_EQ(st.sends, 15u);
  EXPECT_EQ(st.recvs, 15u);
  EXPECT_EQ(st.requires_edges, 15u - 4u);  // sends of ranks other than 0 wait for their recv
  EXPECT_EQ(st.longest_chain_ops, 2u);
}

TEST(TextParserRealFiles, Schedgen2LabelsNumberedAcrossRanks) {
  const Schedule s = read_goal_text_file(testing::example("loggopsim_schedgen2_bcast_8.goal"));
  ASSERT_EQ(s.num_ranks(), 8u);
  EXPECT_EQ(s.rank(0).op(0), Op::send(8, 1, 42001));
  EXPECT_EQ(s.rank(1).op(0), Op::recv(8, 0, 42001));
  EXPECT_EQ(s.num_ops(), 14u);
  EXPECT_EQ(s.num_requires(), 4u);
}

TEST(TextParserRealFiles, ForwardDependencyLines) {
  // "l1 requires l6" comes after l6 is defined but names an earlier op.
  const Schedule s = read_goal_text_file(testing::example("loggopsim2_tests_scripts_schedule_4.goal"));
  const RankOps r0 = s.rank(0);
  ASSERT_EQ(r0.num_ops(), 7u);
  EXPECT_EQ(r0.op(5), Op::calc(1000));
  ASSERT_EQ(r0.requires_of(0).size(), 1u);
  EXPECT_EQ(r0.requires_of(0)[0], 5u);
  // l5 requires l1, l3, l4 (sorted by op index)
  ASSERT_EQ(r0.requires_of(4).size(), 3u);
  EXPECT_EQ(r0.requires_of(4)[0], 0u);
  EXPECT_EQ(r0.requires_of(4)[1], 2u);
  EXPECT_EQ(r0.requires_of(4)[2], 3u);
  const ScheduleStats st = compute_stats(s);
  EXPECT_EQ(st.requires_edges, 32u);
  EXPECT_EQ(st.calc_ns, 4u * 8000u);
  EXPECT_EQ(st.longest_chain_ops, 5u);  // l6 -> l2 -> l3 -> l5 -> l7
}

TEST(TextParserRealFiles, Binomial128) {
  const Schedule s = read_goal_text_file(testing::example("loggopsim2_binomialtreebcast_128_1024.goal"));
  const ScheduleStats st = compute_stats(s);
  EXPECT_EQ(st.num_ranks, 128u);
  EXPECT_EQ(st.sends, 127u);
  EXPECT_EQ(st.recvs, 127u);
  EXPECT_EQ(st.bytes_sent, 127u * 1024u);
  EXPECT_EQ(st.requires_edges, 127u - 7u);
  EXPECT_EQ(s.rank(0).num_ops(), 7u);
}

TEST(TextParserRealFiles, PortalsDialectIsNamed) {

  try {
    read_goal_text_file(testing::test_data("goal/invalid/loggopsim2_portals4_spin_test_4.goal"));
    FAIL() << "the Portals-4/sPIN dialect must be rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(e.column(), 5u);
    EXPECT_NE(std::string(e.what()).find("'put'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Portals-4/sPIN"), std::string::npos) << e.what();
  }
}

TEST(TextParserSyntax, ReferenceExampleWithEveryConstruct) {
  const Schedule s = parse(
      "num_ranks 2\n"
      "// rank 0 computes, then sends 1 MiB; a probe starts when the send starts\n"
      "rank 0 {\n"
      "l1: calc 5000 cpu 0\n"
      "l2: send 1048576b to 1 tag 7 cpu 0 nic 0\n"
      "l2 requires l1\n"
      "l3: calc 200 cpu 1\n"
      "l3 irequires l2\n"
      "}\n"
      "rank 1 {\n"
      "l1: recv 1048576b from -1 tag -1 cpu 0 nic 0\n"
      "}\n");
  const RankOps r0 = s.rank(0);
  EXPECT_EQ(r0.op(0), Op::calc(5000, 0));
  EXPECT_EQ(r0.op(1), Op::send(1048576, 1, 7));
  EXPECT_EQ(r0.op(2), Op::calc(200, 1));
  ASSERT_EQ(r0.requires_of(1).size(), 1u);
  EXPECT_EQ(r0.requires_of(1)[0], 0u);
  ASSERT_EQ(r0.irequires_of(2).size(), 1u);
  EXPECT_EQ(r0.irequires_of(2)[0], 1u);
  EXPECT_EQ(s.rank(1).op(0), Op::recv(1048576, kAnySource, kAnyTag));
}

TEST(TextParserSyntax, WhiteSpaceBetweenTokensIsOptional) {
  const Schedule s = parse(
      "num_ranks 2\n"
      "rank 0{\n"
      "a:send 8bto1tag3cpu2nic1\n"
      "b : send 8 b to 1 tag 3 cpu 2 nic 1\n"
      "c:calc 5cpu3\n"
      "\t c \t requires\t b \t\n"
      "c requiresa\n"
      "}\n"
      "rank 1 { x: recv 8bfrom-1tag-1\n"
      "}\n");
  EXPECT_EQ(s.rank(0).op(0), Op::send(8, 1, 3, 2, 1));
  EXPECT_EQ(s.rank(0).op(1), Op::send(8, 1, 3, 2, 1));
  EXPECT_EQ(s.rank(0).op(2), Op::calc(5, 3));
  EXPECT_EQ(s.rank(0).requires_of(2).size(), 2u);
  EXPECT_EQ(s.rank(1).op(0), Op::recv(8, kAnySource, kAnyTag));
}

TEST(TextParserSyntax, OptionalFieldsInAnyOrderedSubset) {
  const Schedule s = parse(
      "num_ranks 2\nrank 0 {\n"
      "send 1b to 1\nsend 1b to 1 cpu 4\nsend 1b to 1 nic 2\nsend 1b to 1 tag 9 nic 2\nsend 1b to 1 cpu 1 nic 2\n"
      "}\nrank 1 {\n}\n");
  const RankOps r = s.rank(0);
  EXPECT_EQ(r.op(0), Op::send(1, 1, 0, 0, 0));
  EXPECT_EQ(r.op(1), Op::send(1, 1, 0, 4, 0));
  EXPECT_EQ(r.op(2), Op::send(1, 1, 0, 0, 2));
  EXPECT_EQ(r.op(3), Op::send(1, 1, 9, 0, 2));
  EXPECT_EQ(r.op(4), Op::send(1, 1, 0, 1, 2));
}

TEST(TextParserSyntax, CommentsAndBlankLines) {
  const Schedule s = parse(
      "// leading comment\n"
      "/* a block comment\n   over lines */ num_ranks 1\n"
      "\n   \t\n"
      "rank 0 {\n"
      "// inside the block\n"
      "/* before a statement */ l1: calc 1\n"
      "/**/\n"
      "}\n"
      "// trailing");
  EXPECT_EQ(s.num_ops(), 1u);
  EXPECT_EQ(s.rank(0).op(0), Op::calc(1));
}

TEST(TextParserSyntax, CrLfLineEnds) {
  const Schedule s = parse("num_ranks 2\r\nrank 0 {\r\nl1: send 4b to 1\r\n}\r\nrank 1 {\r\nl1: recv 4b from 0\r\n}\r\n");
  EXPECT_EQ(s.rank(0).op(0), Op::send(4, 1));
  EXPECT_EQ(s.rank(1).op(0), Op::recv(4, 0));
}

TEST(TextParserSyntax, LabelsAreScopedPerRank) {
  const Schedule s = parse(
      "num_ranks 2\nrank 0 {\nl1: calc 1\nl2: calc 2\nl2 requires l1\n}\n"
      "rank 1 {\nl2: calc 3\nl1: calc 4\nl1 requires l2\n}\n");
  EXPECT_EQ(s.rank(1).requires_of(1)[0], 0u);
}

TEST(TextParserSyntax, KeywordsWinOnlyAtEqualLength) {
  // 'sender' is a label, and so are words that are keywords only inside an op.
  const Schedule s = parse(
      "num_ranks 1\nrank 0 {\n"
      "sender: calc 1\ntag: calc 2\ncpu: calc 3\nrequires: calc 4\nb: calc 5\n"
      "sender requires tag\nrequires requires cpu\n}\n");
  EXPECT_EQ(s.num_ops(), 5u);
  EXPECT_EQ(s.rank(0).requires_of(0)[0], 1u);
  EXPECT_EQ(s.rank(0).requires_of(3)[0], 2u);
}

TEST(TextParserSyntax, NoNewlineAtEndOfFile) {
  EXPECT_EQ(parse("num_ranks 1\nrank 0 {\ncalc 7\n}").num_ops(), 1u);
  // Several blocks may share a line, as txt2bin allows.
  EXPECT_EQ(parse("num_ranks 2 rank 0 {} rank 1 {}").num_ranks(), 2u);
}

TEST(TextParserSyntax, DuplicateDependencyLinesAreKept) {
  // txt2bin counts each line as an edge; so do we.
  const Schedule s = parse("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nb requires a\nb requires a\n}\n");
  EXPECT_EQ(s.rank(0).requires_of(1).size(), 2u);
}

TEST(TextParserSyntax, LargestValues) {
  const Schedule s = parse(
      "num_ranks 2\nrank 0 {\n"
      "send 9223372036854775807b to 1 tag 4294967294 cpu 255 nic 255\n"
      "calc 9223372036854775 cpu 255\n"
      "}\nrank 1 {\n}\n");
  EXPECT_EQ(s.rank(0).op(0), Op::send(kMaxSize, 1, 4294967294u, 255, 255));
  EXPECT_EQ(s.rank(0).op(1), Op::calc(kMaxCalcNs, 255));
}

TEST(TextParserErrors, CalcPastTheEndOfSimulatedTime) {
  // Its nanoseconds in picoseconds would wrap around: 2^62 ns ran as a makespan of 0.
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc 9223372036854776\n}\n", 3, 6,
                     "calc duration in ns 9223372036854776 is too large (at most 9223372036854775)");
}

// ---- errors: file:line:column and what was expected ----

TEST(TextParserErrors, SendToRankOutOfRange) {
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 8b to 2\n}\nrank 1 {\n}\n", 3, 12, "rank 2 does not exist: num_ranks is 2");
}

TEST(TextParserErrors, RecvFromRankOutOfRange) {
  expect_parse_error("num_ranks 2\nrank 0 {\nl: recv 8b from 7\n}\nrank 1 {\n}\n", 3, 17, "rank 7 does not exist");
}

TEST(TextParserErrors, WildcardOnlyWhereAllowed) {
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 8b to -1\n}\nrank 1 {\n}\n", 3, 12, "only allowed as a recv source");
  expect_parse_error("num_ranks 2\nrank 0 {\nrecv 8b from -2\n}\nrank 1 {\n}\n", 3, 14, "expected source rank");
  expect_parse_error("num_ranks 2\nrank 0 {\nrecv 8b from 1 tag -12\n}\nrank 1 {\n}\n", 3, 20, "only -1");
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc -1\n}\n", 3, 6, "expected calc duration");
}

TEST(TextParserErrors, UnknownLabel) {
  expect_parse_error("num_ranks 1\nrank 0 {\na: calc 1\na requires b\n}\n", 4, 12, "unknown label 'b' in rank 0");
  // Labels are per rank: rank 1 cannot see rank 0's.
  expect_parse_error("num_ranks 2\nrank 0 {\na: calc 1\n}\nrank 1 {\nb: calc 1\nb requires a\n}\n", 7, 12,
                     "unknown label 'a' in rank 1");
  // A dependency must come after both labels.
  expect_parse_error("num_ranks 1\nrank 0 {\na: calc 1\na requires b\nb: calc 2\n}\n", 4, 12, "unknown label 'b'");
}

TEST(TextParserErrors, DuplicateLabel) {
  expect_parse_error("num_ranks 1\nrank 0 {\nx: calc 1\n\nx: calc 2\n}\n", 5, 1,
                     "label 'x' is defined twice in rank 0 (first on line 3)");
}

TEST(TextParserErrors, DependencyCycleNamesItsOps) {
  expect_parse_error("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\nb requires a\nc requires b\na irequires c\n}\n",
                     3, 1, "dependency cycle in rank 0: 'a' (line 3) irequires 'c' (line 5) requires 'b' (line 4) requires 'a' (line 3)");
  expect_parse_error("num_ranks 1\nrank 0 {\na: calc 1\na requires a\n}\n", 4, 1, "'a' depends on itself");
}

TEST(TextParserErrors, RankBlocksMissingOrOutOfOrder) {
  expect_parse_error("num_ranks 3\nrank 0 {\n}\nrank 2 {\n}\n", 4, 6, "expected the block of rank 1, found rank 2");
  expect_parse_error("num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", 4, 6, "rank 0 has a block already");
  expect_parse_error("num_ranks 2\nrank 0 {\n}\nrank 5 {\n}\n", 4, 6, "rank 5 does not exist: num_ranks is 2");
  expect_parse_error("num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\n", 6, 1, "the block of rank 2 is missing");
  expect_parse_error("rank 0 {\n}\n", 1, 1, "'rank' block before 'num_ranks N'");
  expect_parse_error("num_ranks 2\nrank 0 {\nrank 1 {\n}\n}\n", 3, 1, "'rank' inside the block of rank 0");
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc 1\n", 2, 1, "not closed");
  expect_parse_error("num_ranks 1\n}\n", 2, 1, "'}' without an open");
}

TEST(TextParserErrors, NumRanks) {
  expect_parse_error("", 1, 1, "expected 'num_ranks N'");
  expect_parse_error("// only a comment\n", 2, 1, "expected 'num_ranks N'");
  expect_parse_error("num_ranks 0\n", 1, 11, "at least 1");
  expect_parse_error("num_ranks 1\nnum_ranks 1\n", 2, 1, "given twice (first on line 1)");
  expect_parse_error("num_ranks\n", 1, 10, "expected number of ranks (an integer), found end of line");
  expect_parse_error("num_ranks 4294967296\n", 1, 11, "too large");
}

TEST(TextParserErrors, IntegerOverflow) {
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 9223372036854775808b to 1\n}\nrank 1 {\n}\n", 3, 6,
                     "message size in bytes 9223372036854775808 is too large");
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc 99999999999999999999999\n}\n", 3, 6, "is too large");
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc 1 cpu 256\n}\n", 3, 12, "cpu 256 is too large (at most 255)");
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 1b to 1 nic 300\n}\nrank 1 {\n}\n", 3, 18, "nic 300 is too large");
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 1b to 1 tag 4294967295\n}\nrank 1 {\n}\n", 3, 18, "tag 4294967295 is too large");
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 1b to 99999999999\n}\nrank 1 {\n}\n", 3, 12, "too large");
}

TEST(TextParserErrors, FieldOrderAndShape) {
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 1b to 1 cpu 1 tag 2\n}\nrank 1 {\n}\n", 3, 20,
                     "expected 'nic' or end of line (optional fields come in the order tag, cpu, nic), found 'tag'");
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 1 to 1\n}\nrank 1 {\n}\n", 3, 8, "expected 'b' after the message size");
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 1KiB to 1\n}\nrank 1 {\n}\n", 3, 7, "found 'KiB'");
  expect_parse_error("num_ranks 2\nrank 0 {\nsend 1b from 1\n}\nrank 1 {\n}\n", 3, 9, "expected 'to'");
  expect_parse_error("num_ranks 2\nrank 0 {\nrecv 1b to 1\n}\nrank 1 {\n}\n", 3, 9, "expected 'from'");
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc 1 nic 0\n}\n", 3, 8, "calc takes no nic");
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc 1 tag 0\n}\n", 3, 8, "calc takes no tag");
  expect_parse_error("num_ranks 1\nrank 0 {\nx: jump 1\n}\n", 3, 4, "expected 'send', 'recv' or 'calc' after 'x:'");
  expect_parse_error("num_ranks 1\nrank 0 {\nx calc 1\n}\n", 3, 3, "expected ':', 'requires' or 'irequires' after label 'x'");
  expect_parse_error("num_ranks 1\nrank 0 {\nx: calc 1\ny: calc 1\ny requires\n}\n", 5, 11, "expected a label after 'requires'");
  expect_parse_error("num_ranks 1\nrank 0 {\nx: calc 1\ny: calc 1\ny requires x z\n}\n", 5, 14, "expected end of line after the dependency");
}

TEST(TextParserErrors, CommentsOnlyOnTheirOwnLines) {
  expect_parse_error("num_ranks 1\nrank 0 {\ncalc 1 // no\n}\n", 3, 8, "expected 'cpu' or end of line, found '/'");
  expect_parse_error("num_ranks 1\n/* never closed\nrank 0 {\n}\n", 2, 1, "unterminated comment");
  expect_parse_error("num_ranks 1\n/ x\n", 2, 1, "comments start with '//' or '/*'");
}

TEST(TextParserErrors, StrayBytes) {
  expect_parse_error("num_ranks 1\rrank 0 {\n}\n", 1, 12, "a carriage return not followed by a line feed");
  expect_parse_error(std::string("num_ranks 1\nrank 0 {\n\x01\n}\n"), 3, 1, "byte 0x01");
  expect_parse_error("num_ranks 1\nrank 0 {\n42\n}\n", 3, 1, "expected an op, a dependency, a comment or '}', found '42'");
  expect_parse_error("num_ranks 1\nsend 1b to 0\n", 2, 1, "'send' outside a rank block");
  expect_parse_error("num_ranks 1 rankx 0 {\n}\n", 1, 13, "expected 'num_ranks', 'rank' or a comment, found 'rankx'");
}

TEST(TextParserErrors, OtherDialects) {
  expect_parse_error("num_ranks 2\nrank 0 {\nl0: put 1b to 1 ct 0 tag 10\n}\n", 3, 5, "'put' is an operation of LogGOPSim2's");
  expect_parse_error("num_ranks 2\nrank 0 {\nappend 1b to priority_list allowed 0 ct 0 use_once tag 10\n}\n", 3, 1,
                     "'append' is an operation");
  expect_parse_error("num_ranks 1\nrank 0 {\nl2: calcgem5 3 8b\n}\n", 3, 5, "'calcgem5' is an operation");
  expect_parse_error("num_ranks 1\nrank 0 {\ntest 0 for 1\n}\n", 3, 1, "'test' is an operation");
  // ...but those words are fine as labels.
  EXPECT_EQ(parse("num_ranks 1\nrank 0 {\nput: calc 1\ntest: calc 2\ntest requires put\n}\n").num_requires(), 1u);
}

TEST(TextParserErrors, MessageNamesTheFile) {
  try {
    parse_goal_text("num_ranks 1\nrank 0 {\nbad\n}\n", "some/dir/step.goal");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("some/dir/step.goal:3:4: ", 0), 0u) << e.what();
  }
}

TEST(TextParserErrors, MissingFile) {
  try {
    read_goal_text_file("/nonexistent/x.goal");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.goal: cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim::goal
