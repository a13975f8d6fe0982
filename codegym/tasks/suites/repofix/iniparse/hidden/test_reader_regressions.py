from iniparse.reader import parse


def test_value_may_contain_equals_signs():
    text = "[db]\nurl = postgres://u:p@h/db?sslmode=require&x=1\n"
    assert parse(text)["db"]["url"] == "postgres://u:p@h/db?sslmode=require&x=1"


def test_base64_padding_is_kept():
    assert parse("token = YWJjZA==\n")["DEFAULT"]["token"] == "YWJjZA=="
