// The PTX grammar (PTX ISA 8 "Syntax", 4 "Syntax" and 5 "State spaces,
// types and variables") for what nvcc emits, as PEGTL rules. The parse
// tree keeps the rules listed in `selector` (parse.cpp walks it).
#pragma once
#include <tao/pegtl.hpp>

namespace heddle::ptx::grammar {
namespace pg = tao::pegtl;

// ---- lexical (PTX ISA 4.1-4.5) ----
struct line_comment : pg::seq<pg::two<'/'>, pg::until<pg::eolf>> {};
struct block_comment : pg::seq<pg::string<'/', '*'>, pg::until<pg::string<'*', '/'>>> {};
struct sp : pg::sor<pg::space, line_comment, block_comment> {};
struct ws : pg::star<sp> {};
/// Horizontal space only: .loc and .file end at the end of their line.
struct hs : pg::star<pg::blank> {};
struct follow : pg::sor<pg::alnum, pg::one<'_', '$'>> {};
struct ident : pg::seq<pg::sor<pg::alpha, pg::one<'_', '$', '%'>>, pg::star<follow>> {};
/// A name; special registers carry a component (%tid.x).
struct name : pg::seq<ident, pg::opt<pg::one<'.'>, pg::one<'x', 'y', 'z', 'w'>, pg::not_at<follow>>> {};
struct hex_int : pg::seq<pg::one<'0'>, pg::one<'x', 'X'>, pg::plus<pg::xdigit>, pg::opt<pg::one<'U'>>> {};
struct dec_int : pg::seq<pg::plus<pg::digit>, pg::opt<pg::one<'U'>>> {};
struct integer : pg::seq<pg::opt<pg::one<'-'>>, pg::sor<hex_int, dec_int>> {};
/// 0fXXXXXXXX (f32) and 0dXXXXXXXXXXXXXXXX (f64) floating-point bit patterns.
struct float_bits
    : pg::seq<pg::one<'0'>, pg::sor<pg::seq<pg::one<'f', 'F'>, pg::rep<8, pg::xdigit>>,
                                    pg::seq<pg::one<'d', 'D'>, pg::rep<16, pg::xdigit>>>> {};
struct string_lit : pg::seq<pg::one<'"'>, pg::until<pg::one<'"'>>> {};

// ---- operands (PTX ISA 6.4) ----
struct operand;
struct sink : pg::seq<pg::one<'_'>, pg::not_at<follow>> {};
struct vector : pg::seq<pg::one<'{'>, ws, pg::list<operand, pg::seq<ws, pg::one<','>, ws>>, ws,
                        pg::one<'}'>> {};
struct offset : pg::seq<pg::one<'+', '-'>, ws, pg::opt<pg::one<'-'>>, pg::sor<hex_int, dec_int>> {};  // nvcc writes +-624
struct addr_base : pg::sor<name, integer> {};
struct address : pg::seq<pg::one<'['>, ws, addr_base, ws, pg::opt<offset>, ws,
                         pg::opt<pg::one<','>, ws, vector>, ws, pg::one<']'>> {};
struct pair : pg::seq<name, ws, pg::one<'|'>, ws, name> {};
/// call's return and argument lists: `call (retval0), f, (param0, param1);`
struct paren_list : pg::seq<pg::one<'('>, ws, pg::opt<pg::list<operand, pg::seq<ws, pg::one<','>, ws>>>,
                            ws, pg::one<')'>> {};
struct operand : pg::sor<paren_list, address, vector, float_bits, integer, sink, pair, name> {};

// ---- instructions (PTX ISA 4.x "Instruction statements") ----
struct modifier : pg::plus<pg::sor<follow, pg::two<':'>>> {};
struct opcode : pg::seq<ident, pg::star<pg::one<'.'>, modifier>> {};
struct guard_not : pg::one<'!'> {};
struct guard : pg::seq<pg::one<'@'>, pg::opt<guard_not>, name> {};
struct operands : pg::list<operand, pg::seq<ws, pg::one<','>, ws>> {};
struct instruction
    : pg::seq<pg::opt<guard, ws>, opcode, ws, pg::opt<operands>, ws, pg::one<';'>> {};
struct label : pg::seq<name, ws, pg::one<':'>> {};

// ---- directives in bodies (PTX ISA 5.1-5.4, 11) ----
struct type : pg::seq<pg::one<'.'>, ident> {};
struct align : pg::seq<TAO_PEGTL_STRING(".align"), ws, dec_int> {};
struct count : pg::seq<pg::one<'<'>, dec_int, pg::one<'>'>> {};
struct reg_item : pg::seq<name, pg::opt<count>> {};
struct reg_decl : pg::seq<TAO_PEGTL_STRING(".reg"), ws, pg::star<type, ws>,
                          pg::list<reg_item, pg::seq<ws, pg::one<','>, ws>>, ws, pg::one<';'>> {};
struct space : pg::sor<TAO_PEGTL_STRING(".shared"), TAO_PEGTL_STRING(".local"),
                       TAO_PEGTL_STRING(".global"), TAO_PEGTL_STRING(".const"),
                       TAO_PEGTL_STRING(".param")> {};
struct array : pg::seq<pg::one<'['>, pg::opt<dec_int>, pg::one<']'>> {};
struct var_attr : pg::sor<align, TAO_PEGTL_STRING(".extern"), TAO_PEGTL_STRING(".visible"),
                          TAO_PEGTL_STRING(".weak"), type> {};
/// An initializer as written (PTX ISA 5.4.4); variables.cpp reads its values.
struct initializer : pg::until<pg::at<pg::one<';'>>> {};
struct extern_kw : TAO_PEGTL_STRING(".extern") {};
struct var_decl
    : pg::seq<pg::opt<pg::sor<extern_kw, TAO_PEGTL_STRING(".visible"), TAO_PEGTL_STRING(".weak")>, ws>,
              space, ws, pg::star<var_attr, ws>, name, pg::opt<array>, ws,
              pg::opt<pg::one<'='>, ws, initializer>, pg::one<';'>> {};
struct loc_triple : pg::seq<dec_int, hs, dec_int, hs, dec_int> {};
struct loc : pg::seq<TAO_PEGTL_STRING(".loc"), hs, loc_triple,
                     pg::opt<hs, pg::one<','>, hs, TAO_PEGTL_STRING("function_name"), hs, name>,
                     pg::opt<hs, pg::one<','>, hs, TAO_PEGTL_STRING("inlined_at"), hs, loc_triple>> {};
struct pragma : pg::seq<TAO_PEGTL_STRING(".pragma"), ws, string_lit, ws, pg::one<';'>> {};
struct block;
struct statement : pg::sor<block, loc, pragma, reg_decl, var_decl, label, instruction> {};
struct block_open : pg::one<'{'> {};
struct block_close : pg::one<'}'> {};
/// Inside a body every statement must parse: an error points at its line.
struct block : pg::seq<block_open, ws, pg::star<pg::not_at<block_close>, pg::must<statement>, ws>,
                       block_close> {};

// ---- module level (PTX ISA 11) ----
struct param : pg::seq<TAO_PEGTL_STRING(".param"), ws, pg::star<var_attr, ws>, name, pg::opt<array>> {};
struct params : pg::seq<pg::one<'('>, ws, pg::opt<pg::list<param, pg::seq<ws, pg::one<','>, ws>>>, ws,
                        pg::one<')'>> {};
// The cluster directives (PTX ISA 11.5): kept, they shape the launch.
struct reqnctapercluster
    : pg::seq<TAO_PEGTL_STRING(".reqnctapercluster"), ws, pg::list<dec_int, pg::seq<ws, pg::one<','>, ws>>> {};
struct explicitcluster : TAO_PEGTL_STRING(".explicitcluster") {};
struct perf_directive
    : pg::seq<pg::sor<TAO_PEGTL_STRING(".maxntid"), TAO_PEGTL_STRING(".reqntid"),
                      TAO_PEGTL_STRING(".minnctapersm"), TAO_PEGTL_STRING(".maxnreg"),
                      TAO_PEGTL_STRING(".maxclusterrank"), TAO_PEGTL_STRING(".noreturn"),
                      TAO_PEGTL_STRING(".pragma")>,
              pg::until<pg::at<pg::sor<pg::eol, pg::one<'{', ';'>>>>> {};
struct entry_kind : pg::sor<TAO_PEGTL_STRING(".entry"), TAO_PEGTL_STRING(".func")> {};
struct function_name : name {};
struct function
    : pg::seq<pg::star<pg::sor<TAO_PEGTL_STRING(".visible"), TAO_PEGTL_STRING(".weak"),
                               TAO_PEGTL_STRING(".extern")>,
                       ws>,
              entry_kind, ws, pg::opt<params, ws>, function_name, ws, pg::opt<params>, ws,
              pg::star<pg::sor<reqnctapercluster, explicitcluster, perf_directive>, ws>,
              pg::sor<block, pg::one<';'>>> {};
struct file_directive : pg::seq<TAO_PEGTL_STRING(".file"), hs, dec_int, hs, string_lit,
                                pg::until<pg::at<pg::eolf>>> {};
struct target : pg::seq<TAO_PEGTL_STRING(".target"), hs, pg::until<pg::at<pg::eolf>>> {};
struct header : pg::seq<pg::sor<TAO_PEGTL_STRING(".version"), TAO_PEGTL_STRING(".address_size")>,
                        pg::until<pg::at<pg::eolf>>> {};
struct skipped_braces : pg::seq<pg::one<'{'>, pg::until<pg::one<'}'>, pg::sor<skipped_braces, pg::any>>> {};
struct section : pg::seq<TAO_PEGTL_STRING(".section"), pg::until<pg::at<pg::one<'{'>>>, skipped_braces> {};
struct top_level : pg::sor<header, target, file_directive, section, function, var_decl> {};
struct module : pg::seq<ws, pg::star<pg::not_at<pg::eof>, pg::must<top_level>, ws>, pg::eof> {};

/// The rules kept in the parse tree.
template <class Rule>
using selector = pg::parse_tree::selector<
    Rule, pg::parse_tree::store_content::on<name, integer, float_bits, sink, vector, offset, address,
                                            paren_list,
                                            pair, opcode, guard, guard_not, instruction, label, type,
                                            align, count, reg_item, reg_decl, space, array, var_decl,
                                            loc, loc_triple, block_open, block_close, param,
                                            function_name, entry_kind, function, file_directive,
                                            initializer, extern_kw,
                                            string_lit, target, dec_int, hex_int, operands,
                                            reqnctapercluster, explicitcluster>>;

}  // namespace heddle::ptx::grammar
