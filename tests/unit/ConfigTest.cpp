// .nestor.yaml parsing and suppression comments.
#include "nestor/Config.h"
#include "nestor/Lint.h"

#include <gtest/gtest.h>

using namespace nestor;

TEST(Config, RulesAndProfile) {
  auto c = parseConfig("rules:\n  np-parallel-loop: note\n  dp-launch-in-loop: off\n  dp-device-sync: error\n"
                       "profile:\n  build: \"nvcc {source} -o {exe}\"\n  run: \"{exe}\"\n  outputs: [out.bin]\n"
                       "  tolerance: 1e-6\n  repetitions: 20\n  timeout: 30\n",
                       ".nestor.yaml");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->severityOf("np-parallel-loop", Severity::Warning), Severity::Note);
  EXPECT_FALSE(c->enabled("dp-launch-in-loop"));
  EXPECT_TRUE(c->enabled("np-parallel-loop"));
  EXPECT_EQ(c->severityOf("np-irregular-loop", Severity::Warning), Severity::Warning);
  EXPECT_EQ(c->profile.build, "nvcc {source} -o {exe}");
  EXPECT_EQ(c->profile.outputs, std::vector<std::string>{"out.bin"});
  EXPECT_DOUBLE_EQ(c->profile.tolerance, 1e-6);
  EXPECT_EQ(c->profile.repetitions, 20u);
  EXPECT_EQ(c->profile.timeoutSeconds, 30u);
}

TEST(Config, EmptyFileIsDefaults) {
  auto c = parseConfig("", ".nestor.yaml");
  ASSERT_TRUE(bool(c));
  EXPECT_TRUE(c->rules.empty());
}

TEST(Config, Errors) {
  auto expectError = [](const char *text, const char *substring) {
    auto c = parseConfig(text, "/ws/.nestor.yaml");
    ASSERT_FALSE(bool(c)) << text;
    std::string msg = llvm::toString(c.takeError());
    EXPECT_NE(msg.find(substring), std::string::npos) << msg;
    EXPECT_NE(msg.find("/ws/.nestor.yaml"), std::string::npos) << msg;
  };
  expectError("rules:\n  no-such-rule: off\n", "unknown rule 'no-such-rule'");
  expectError("rules:\n  np-parallel-loop: loud\n", "expected off, on, note, warning or error");
  expectError("rulez:\n  np-parallel-loop: off\n", "unknown key");
  expectError("rules: [1, 2\n", "line");
  expectError("profile:\n  repetitions: many\n", "invalid");
}

TEST(Suppression, SameLineAndLineBefore) {
  Finding f;
  f.ruleId = "np-parallel-loop";
  f.span.begin.line = 3;
  EXPECT_TRUE(isSuppressed("a\nb\nfor (...) // nestor-ignore(np-parallel-loop)\n", f));
  EXPECT_TRUE(isSuppressed("a\n// nestor-ignore(dp-device-sync, np-parallel-loop)\nfor (...)\n", f));
  EXPECT_TRUE(isSuppressed("a\n// nestor-ignore(*)\nfor (...)\n", f));
  EXPECT_FALSE(isSuppressed("// nestor-ignore(np-parallel-loop)\nb\nfor (...)\n", f)); // two lines above
  EXPECT_FALSE(isSuppressed("a\n// nestor-ignore(np-irregular-loop)\nfor (...)\n", f));
  EXPECT_FALSE(isSuppressed("a\n// nestor-ignore(np-parallel-loop\nfor (...)\n", f)); // unclosed
}
